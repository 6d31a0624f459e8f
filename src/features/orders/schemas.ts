import { type Static, Type } from 'typebox';

import { ORDER_SOURCES, ORDER_STATUSES, type OrderStatus } from '../../shared/db/tables/orders.js';
import { COD_STATUSES } from '../../shared/db/tables/proofs.js';

// The stored vocabulary is defined with the table; the API shows the same values.
export { ORDER_SOURCES, ORDER_STATUSES, type OrderSource, type OrderStatus } from '../../shared/db/tables/orders.js';

export const TERMINAL_STATUSES: readonly OrderStatus[] = ['delivered', 'partially_delivered', 'returned', 'cancelled'];

export const MAX_MONEY = 99_999_999.99;

const Str = (opts: { maxLength?: number; description?: string } = {}) => Type.String({ maxLength: 500, ...opts });
const ReqStr = (opts: { maxLength?: number; description?: string } = {}) =>
  Type.String({ minLength: 1, maxLength: 500, ...opts });
const Phone = Type.String({
  pattern: '^\\+[0-9]{8,15}$',
  description: 'E.164 phone number: + followed by 8 to 15 digits, e.g. +51987654321',
});
const Money = (description: string) => Type.Number({ minimum: 0, maximum: MAX_MONEY, description });

export const OrderStatusSchema = Type.Enum([...ORDER_STATUSES], { $id: 'OrderStatus' });
export const OrderSourceSchema = Type.Enum([...ORDER_SOURCES], { $id: 'OrderSource' });

export const Customer = Type.Object(
  {
    name: ReqStr({ description: 'End customer name' }),
    document_type: Type.Optional(Str()),
    document_number: Type.Optional(Str()),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 500 })),
    phone: Type.Optional(Phone),
    whatsapp: Type.Optional(Phone),
  },
  { additionalProperties: false, $id: 'Customer' },
);

export const Address = Type.Object(
  {
    label: Type.Optional(Str()),
    address: ReqStr({ description: 'Free-text address' }),
    district: Type.Optional(Str()),
    city: Type.Optional(Str()),
    department: Type.Optional(Str()),
    lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
    reference: Type.Optional(Str()),
    access_notes: Type.Optional(Str()),
  },
  { additionalProperties: false, $id: 'Address' },
);

export const OrderItem = Type.Object(
  {
    sku: Type.Optional(Str()),
    description: ReqStr(),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, default: 1 })),
    weight_kg: Type.Optional(Type.Number({ minimum: 0, maximum: 100000 })),
    declared_value: Type.Optional(Money('Declared value, in the account currency')),
  },
  { additionalProperties: false, $id: 'OrderItem' },
);

const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:mm, 00:00 to 23:59' });
export const TimeWindow = Type.Object({ start: HHMM, end: HHMM }, { additionalProperties: false, $id: 'TimeWindow' });

export const Metadata = Type.Unsafe<Record<string, string | number | boolean>>({
  $id: 'Metadata',
  type: 'object',
  maxProperties: 50,
  propertyNames: { maxLength: 40 },
  additionalProperties: {
    description: 'a string of at most 500 characters, a number or a boolean',
    anyOf: [{ type: 'string', maxLength: 500 }, { type: 'number' }, { type: 'boolean' }],
  },
  description: 'Up to 50 keys of at most 40 characters; values are strings (up to 500 characters), numbers or booleans',
});

export const OrderCreate = Type.Object(
  {
    external_order_id: Type.Optional(Type.String({ maxLength: 100 })),
    source: Type.Optional(OrderSourceSchema),
    customer: Customer,
    delivery_address: Address,
    items: Type.Optional(Type.Array(OrderItem, { maxItems: 500 })),
    requested_date: Type.Optional(
      Type.String({ format: 'date-time', description: 'ISO 8601 date-time with offset, e.g. 2025-07-01T09:00:00Z' }),
    ),
    time_window: Type.Optional(TimeWindow),
    priority: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3, default: 1, description: '1 low, 2 normal, 3 high' }),
    ),
    is_urgent: Type.Optional(Type.Boolean({ default: false })),
    requires_signature: Type.Optional(Type.Boolean({ default: true })),
    requires_photo: Type.Optional(Type.Boolean({ default: false })),
    cash_on_delivery: Type.Optional(Money('Amount to collect on delivery; 0 when not applicable')),
    customer_notes: Type.Optional(Str()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, $id: 'OrderCreateParams' },
);
export type OrderCreate = Static<typeof OrderCreate>;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const Order = Type.Object(
  {
    id: Type.String({ examples: ['ord_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('order'),
    livemode: Type.Boolean(),
    tracking_code: Type.String(),
    external_order_id: Nullable(Type.String()),
    source: Nullable(OrderSourceSchema),
    status: OrderStatusSchema,
    customer: Customer,
    delivery_address: Address,
    items: Type.Array(OrderItem),
    weight_kg: Type.Number(),
    packages: Type.Integer(),
    cash_on_delivery: Type.Number(),
    shipping_cost: Type.Number(),
    currency: Type.String(),
    requested_date: Nullable(Type.String({ format: 'date-time' })),
    time_window: Nullable(TimeWindow),
    priority: Type.Integer(),
    is_urgent: Type.Boolean(),
    requires_signature: Type.Boolean(),
    requires_photo: Type.Boolean(),
    customer_notes: Nullable(Type.String()),
    metadata: Metadata,
    courier: Nullable(Type.Object({ id: Type.String(), name: Type.String() })),
    route: Nullable(Type.String()),
    cancellation_reason: Nullable(Type.String()),
    failure_reason: Nullable(Type.String()),
    attempts: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Order' },
);
export type Order = Static<typeof Order>;

export const OrderList = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Order),
    has_more: Type.Boolean(),
  },
  { $id: 'OrderList' },
);

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
  search: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Orders matching any of: the order id or tracking code (exactly), the external_order_id (exactly), the start of the customer name (any case, accents ignored: "jos" finds "José Pérez"), the last digits of the customer phone (at least 4: "4321" finds +51987654321)',
    }),
  ),
  account: Type.Optional(Type.String({ maxLength: 100, description: 'Operator keys only: one account\u2019s orders' })),
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

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const CancelBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: false, $id: 'OrderCancelParams' },
);

export const Quote = Type.Object(
  {
    object: Type.Literal('quote'),
    livemode: Type.Boolean(),
    currency: Type.String(),
    shipping_cost: Type.Number(),
    distance_km: Type.Number(),
    weight_kg: Type.Number(),
    packages: Type.Integer(),
    breakdown: Type.Object({
      base_fee: Type.Number(),
      distance: Type.Number(),
      weight: Type.Number(),
      urgent: Type.Number(),
      cod_fee: Type.Number(),
      minimum_adjustment: Type.Number(),
    }),
  },
  { $id: 'Quote' },
);

export const TrackingEvent = Type.Object(
  {
    status: OrderStatusSchema,
    occurred_at: Type.String({ format: 'date-time' }),
    lat: Nullable(Type.Number()),
    lng: Nullable(Type.Number()),
  },
  { $id: 'TrackingEvent' },
);

export const Tracking = Type.Object(
  {
    object: Type.Literal('tracking'),
    order: Type.String(),
    tracking_code: Type.String(),
    status: OrderStatusSchema,
    courier: Nullable(Type.Object({ name: Type.String(), lat: Nullable(Type.Number()), lng: Nullable(Type.Number()) })),
    eta_minutes: Nullable(Type.Integer()),
    timeline: Type.Array(TrackingEvent),
  },
  { $id: 'Tracking' },
);
