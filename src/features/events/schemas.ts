import { type Static, Type } from 'typebox';
import { Delivery } from '../webhooks/schemas.js';

export const Event = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('event'),
    event: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    livemode: Type.Boolean(),
    api_version: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown()),
    pending_webhooks: Type.Integer({ description: 'Deliveries not yet succeeded or exhausted' }),
    deliveries: Type.Optional(Type.Array(Delivery)),
  },
  { $id: 'Event' },
);

export const EventList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Event), has_more: Type.Boolean() },
  { $id: 'EventList' },
);

export const EventQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 100 })),
    event: Type.Optional(Type.String({ maxLength: 100, description: 'Event name, e.g. order.delivered' })),
    order: Type.Optional(Type.String({ maxLength: 100, description: 'Order id' })),
    delivery_success: Type.Optional(
      Type.Boolean({
        description: 'false: events with a delivery that failed or is retrying; true: events all delivered',
      }),
    ),
    include_deliveries: Type.Optional(
      Type.Boolean({
        description:
          'true: each event with its `deliveries`, as `GET /v1/events/{id}` answers it (an order\u2019s page shows them)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EventQuery = Static<typeof EventQuery>;

export const RedeliverBody = Type.Object(
  { endpoint: Type.Optional(Type.String({ maxLength: 100, description: 'Only this endpoint (we_…)' })) },
  { additionalProperties: false, $id: 'EventRedeliverParams' },
);
