// The list and the counts of orders: their shared filters, queries and the counts' answer
// (GET /v1/orders, GET /v1/orders/counts). Split from schemas.ts, which keeps the order itself.
import { type Static, Type } from 'typebox';
import { ORDER_STATUSES, type OrderStatus } from '../../shared/db/tables/orders.js';
import { COD_STATUSES } from '../../shared/db/tables/proofs.js';
import { AccountFilter } from '../../shared/params.js';
import { OrderSourceSchema, OrderStatusSchema } from './schemas.js';

/** The filters the list and the counts share (GET /v1/orders, GET /v1/orders/counts). */
const filterFields = {
  source: Type.Optional(OrderSourceSchema),
  external_order_id: Type.Optional(Type.String({ maxLength: 100 })),
  created_gte: Type.Optional(Type.String({ format: 'date-time' })),
  created_lt: Type.Optional(Type.String({ format: 'date-time' })),
  due_gte: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'Orders due at or after this instant. An order is due at its requested_date, or, when it has none, at its created_at',
    }),
  ),
  due_lt: Type.Optional(Type.String({ format: 'date-time', description: 'Orders due before this instant' })),
  due_on: Type.Optional(
    Type.String({
      format: 'date',
      description:
        'Orders due on this local day (YYYY-MM-DD), each read in its own time zone: its requested_day, or, when it has none, the day it was created',
    }),
  ),
  due_from: Type.Optional(
    Type.String({
      format: 'date',
      description: 'Orders due on this local day or later (as due_on): the reports’ links',
    }),
  ),
  due_to: Type.Optional(Type.String({ format: 'date', description: 'Orders due on this local day or earlier' })),
  courier: Type.Optional(Type.String({ maxLength: 100, description: 'Orders of this courier (cou_…)' })),
  district: Type.Optional(
    Type.String({ maxLength: 500, description: 'Orders whose delivery_address.district is exactly this' }),
  ),
  outcome: Type.Optional(
    Type.Enum(['delivered', 'failed', 'cancelled'], {
      description: 'delivered: delivered or partially_delivered; failed: failed or returned; cancelled',
    }),
  ),
  on_time: Type.Optional(
    Type.Boolean({ description: 'Delivered orders inside (true) or outside (false) their window' }),
  ),
  first_attempt: Type.Optional(
    Type.Boolean({ description: 'Delivered orders delivered at their first attempt (true) or a later one (false)' }),
  ),
  rated: Type.Optional(
    Type.Boolean({ description: 'Orders the customer rated on the tracking page (true) or did not (false)' }),
  ),
  rating: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 5, description: 'Orders the customer rated with exactly this many stars' }),
  ),
  search: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Orders matching any of: the order id or tracking code (exactly), the external_order_id (exactly), the start of the customer name (any case, accents ignored: "jos" finds "José Pérez"), the last digits of the customer phone (at least 4: "4321" finds +51987654321)',
    }),
  ),
  account: Type.Optional(AccountFilter('The carrier (operator keys, admins, dispatchers): one account\u2019s orders')),
  far_from_address: Type.Optional(
    Type.Boolean({
      description:
        'Orders whose last attempt (delivery or failure) was recorded far from (true) or near (false) the address; orders without a measured attempt match neither',
    }),
  ),
  cod_status: Type.Optional(
    Type.Enum([...COD_STATUSES], {
      description:
        'Delivered orders whose proof recorded this cash on delivery outcome: collected, short (less than asked) or over',
    }),
  ),
};

export const ListQuery = Type.Object(
  {
    status: Type.Optional(OrderStatusSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 100 })),
    ending_before: Type.Optional(Type.String({ maxLength: 100 })),
    ...filterFields,
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuery>;

export const CountsQuery = Type.Object(filterFields, { additionalProperties: false });
export type CountsQuery = Static<typeof CountsQuery>;

export const OrderCounts = Type.Object(
  {
    object: Type.Literal('order_counts'),
    livemode: Type.Boolean(),
    total: Type.Integer({ description: 'Orders matching the filters, of every status' }),
    counts: Type.Object(
      Object.fromEntries(ORDER_STATUSES.map((s) => [s, Type.Integer({ minimum: 0 })])) as Record<
        OrderStatus,
        ReturnType<typeof Type.Integer>
      >,
      { description: 'Orders matching the filters, per status (0 included)' },
    ),
  },
  { $id: 'OrderCounts' },
);
