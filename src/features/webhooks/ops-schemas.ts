import { type Static, Type } from 'typebox';
import { AccountFilter, Nullable } from '../../shared/params.js';

/**
 * The reads that the carrier shares with merchants: webhook endpoints and failed deliveries. A
 * merchant sees its own account; operator keys, admins and dispatchers see every account of their
 * environment and may narrow it with `account` (as `GET /v1/orders?account=` does).
 */

const Account = AccountFilter('The carrier (operator keys, admins, dispatchers): one account\u2019s (acct_…)');

export const EndpointListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(Type.Enum(['enabled', 'disabled'], { description: 'Only endpoints in this state' })),
    account: Type.Optional(Account),
  },
  { additionalProperties: false },
);
export type EndpointListQuery = Static<typeof EndpointListQuery>;

export const DeliveryListQuery = Type.Object(
  {
    status: Type.Enum(['failed'], {
      description:
        'Required. failed: exhausted (every attempt failed, or the endpoint answered 410 or was disabled). ' +
        'Pending and succeeded deliveries are listed per event (GET /v1/events/{id}).',
    }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'id of the last delivery received (del_…)' }),
    ),
    endpoint: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only this endpoint (we_…)' })),
    account: Type.Optional(Account),
  },
  { additionalProperties: false },
);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

/** A delivery with what a person needs to act on it without opening the event: whose, which event, where to. */
export const DeliveryDetail = Type.Object(
  {
    id: Type.String({ examples: ['del_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('webhook_delivery'),
    account: Type.String(),
    event: Type.String({ description: 'Event id (evt_…)' }),
    event_type: Type.String({ examples: ['order.delivered'] }),
    endpoint: Type.String(),
    endpoint_url: Type.String(),
    order: Nullable(Type.String()),
    status: Type.Enum(['pending', 'succeeded', 'failed']),
    attempts: Type.Integer(),
    last_error: Nullable(Type.String()),
    last_status_code: Nullable(Type.Integer()),
    created_at: Type.String({ format: 'date-time' }),
    completed_at: Nullable(Type.String({ format: 'date-time' })),
    livemode: Type.Boolean(),
  },
  { $id: 'WebhookDeliveryDetail' },
);

export const DeliveryDetailList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(DeliveryDetail), has_more: Type.Boolean() },
  { $id: 'WebhookDeliveryDetailList' },
);
