import { Type } from 'typebox';

export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'Sent by EventSource when it reconnects: the `id` of the last message received. The order events after it are replayed first; an id older than an hour, or a backlog over the replay bound, gets `event: reset` instead (reload, then carry on). Anything that is not an event id starts live.',
    }),
  ),
});

export const StreamQuery = Type.Object(
  {
    mode: Type.Optional(
      Type.Union([Type.Literal('test'), Type.Literal('live')], {
        description:
          'The environment of a signed-in user\u2019s stream, as the Ruta-Mode header picks it elsewhere (EventSource cannot send headers); default test. A key or a courier session is bound to its own environment: naming the other one is 422.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const StreamBody = Type.String({
  description:
    'Server-Sent Events: `event: order` (data: the webhook envelope), `event: courier.location`, `event: route_plan`, `event: order_import`, `event: reset` (data: `{reason}`; the client missed too much to be replayed and reloads its data), and `: heartbeat` comments. See docs/stream.md.',
});
