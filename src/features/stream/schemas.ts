import { Type } from 'typebox';

export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'Sent by EventSource when it reconnects: the `id` of the last message received. Order events after it (at most one hour old) are replayed first; anything else starts live.',
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
    'Server-Sent Events: `event: order` (data: the webhook envelope), `event: courier.location`, `event: route_plan`, `event: order_import`, and `: heartbeat` comments. See docs/stream.md.',
});
