import { type Static, Type } from 'typebox';
import { ERROR_CLASSES } from '../../shared/db/tables/webhook_attempts.js';
import { Nullable } from '../../shared/params.js';
import { EVENT_TYPES } from './event-types.js';

export { EVENT_TYPES };

/** Sent only by POST /webhook_endpoints/{id}/test; no subscription needed. */
export const TEST_EVENT = 'webhook.test';

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'https:// address receiving events' });
const Events = Type.Array(Type.String({ maxLength: 100 }), {
  maxItems: 100,
  description: `Event names, or "*" for all: ${EVENT_TYPES.join(', ')}`,
});
const Description = Type.String({ maxLength: 500 });

export const EndpointCreate = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false, $id: 'WebhookEndpointCreateParams' },
);
export type EndpointCreate = Static<typeof EndpointCreate>;

export const EndpointUpdate = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Nullable(Description)),
    status: Type.Optional(Type.Enum(['enabled', 'disabled'])),
  },
  { additionalProperties: false, $id: 'WebhookEndpointUpdateParams' },
);
export type EndpointUpdate = Static<typeof EndpointUpdate>;

export const Endpoint = Type.Object(
  {
    id: Type.String({ examples: ['we_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('webhook_endpoint'),
    account: Type.String({ description: 'The merchant account it belongs to (acct_…)' }),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    status: Type.Enum(['enabled', 'disabled']),
    disabled_reason: Nullable(Type.String()),
    disabled_at: Nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
    livemode: Type.Boolean(),
    secret: Type.Optional(
      Type.String({ description: 'Only in the answers of creation and rotate_secret: store it then.' }),
    ),
  },
  { $id: 'WebhookEndpoint' },
);
export type Endpoint = Static<typeof Endpoint>;

export const EndpointList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Endpoint), has_more: Type.Boolean() },
  { $id: 'WebhookEndpointList' },
);

export const Deleted = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('webhook_endpoint'),
    deleted: Type.Literal(true),
  },
  { $id: 'DeletedWebhookEndpoint' },
);

export const Delivery = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('webhook_delivery'),
    event: Type.String(),
    endpoint: Type.String(),
    order: Nullable(Type.String()),
    status: Type.Enum(['pending', 'succeeded', 'failed']),
    attempts: Type.Integer(),
    next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
    last_error: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookDelivery' },
);

export const DeliveryList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Delivery) },
  { $id: 'WebhookDeliveryList' },
);

export const Attempt = Type.Object(
  {
    id: Type.String({ examples: ['whatt_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('webhook_attempt'),
    delivery: Type.String(),
    event: Type.String(),
    event_type: Type.String({ description: "The event's type: order.delivered, …, or webhook.test" }),
    order: Nullable(Type.String({ description: 'The order the event is about (ord_…); null for webhook.test' })),
    attempt: Type.Integer(),
    succeeded: Type.Boolean(),
    started_at: Type.String({ format: 'date-time' }),
    finished_at: Type.String({ format: 'date-time' }),
    duration_ms: Type.Integer(),
    response_status: Nullable(Type.Integer()),
    error_class: Nullable(Type.Enum([...ERROR_CLASSES])),
    error_message: Nullable(Type.String()),
    response_body: Nullable(Type.String({ description: 'The first KiB of the response body' })),
    next_attempt_at: Nullable(
      Type.String({
        format: 'date-time',
        description:
          "When the delivery tries again: set on a failed attempt that is its delivery's latest while a retry is scheduled; null otherwise",
      }),
    ),
    gave_up: Type.Boolean({
      description:
        'True on the last attempt of a delivery that failed for good: its retries (24 h) are spent, the endpoint answered 410, or it was disabled or deleted before the next try. Nothing more is sent unless the event is redelivered',
    }),
  },
  { $id: 'WebhookAttempt' },
);

export const AttemptList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Attempt), has_more: Type.Boolean() },
  { $id: 'WebhookAttemptList' },
);

export const AttemptQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'id of the last attempt received (whatt_…)' }),
    ),
    event: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type AttemptQuery = Static<typeof AttemptQuery>;
