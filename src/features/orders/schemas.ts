import { type Static, Type } from 'typebox';
import { ORDER_SOURCES, ORDER_STATUSES } from '../../shared/db/tables/orders.js';
import { Nullable } from '../../shared/params.js';
import {
  Address,
  AttemptPosition,
  Customer,
  Geocode,
  PICKUP_DESCRIPTION,
  PickupAddress,
  PickupAddressCreate,
  ReqStr,
  Str,
} from './address-schemas.js';
import { PinStatus, ProofRequirements } from './proof-schemas.js';

// The stored vocabulary is defined with the table; the API shows the same values.
export {
  ORDER_SOURCES,
  ORDER_STATUSES,
  type OrderSource,
  type OrderStatus,
  TERMINAL_STATUSES,
} from '../../shared/db/tables/orders.js';

// The schemas of an order itself: its create body, the order and its list, cancelling, the quote,
// tracking. Who and where it names are in address-schemas.ts; the list's filters and the counts in
// list-schemas.ts (split by topic when this file outgrew the ~300-line guideline).

export const MAX_MONEY = 99_999_999.99;

const Money = (description: string) => Type.Number({ minimum: 0, maximum: MAX_MONEY, description });

export const OrderStatusSchema = Type.Enum([...ORDER_STATUSES], { $id: 'OrderStatus' });
export const OrderSourceSchema = Type.Enum([...ORDER_SOURCES], { $id: 'OrderSource' });

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

/**
 * An instant or a calendar day (docs/api.md "Dates and time zones"). The day is read in the
 * order's zone: its account's depot's, else its account's, else the carrier's.
 */
export const RequestedDate = Type.Union(
  [
    Type.String({ format: 'date', description: 'A calendar day, e.g. 2026-11-25' }),
    Type.String({ format: 'date-time', description: 'A date-time with offset, e.g. 2026-11-25T09:00:00-05:00' }),
  ],
  {
    description:
      'a date-time with offset (an instant, e.g. 2026-11-25T09:00:00-05:00) or a date YYYY-MM-DD (a calendar day in the order\u2019s time zone)',
  },
);

/** A time of day, `HH:mm`: the pattern of a time window's ends. */
export const TIME_OF_DAY = '^([01][0-9]|2[0-3]):[0-5][0-9]$';
/**
 * TIME_OF_DAY compiled once, for the checks made outside a schema (quote.ts, imports' cell-reading.ts):
 * one definition, so they cannot drift. No `g` flag, so the shared object's `test` keeps no state.
 */
export const TIME_OF_DAY_RE = new RegExp(TIME_OF_DAY);
const HHMM = Type.String({ pattern: TIME_OF_DAY, description: 'HH:mm, 00:00 to 23:59' });
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

const Requirements = Type.Array(Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z0-9_-]+$' }), {
  maxItems: 20,
  uniqueItems: true,
  description:
    'Skills its courier needs (`cold`, `large`): plans and dispatch give it only to a courier with all of them',
});

export const OrderCreate = Type.Object(
  {
    external_order_id: Type.Optional(Type.String({ maxLength: 100 })),
    source: Type.Optional(OrderSourceSchema),
    customer: Customer,
    delivery_address: Address,
    pickup_address: Type.Optional(Type.Union([PickupAddressCreate, Type.Null()], { description: PICKUP_DESCRIPTION })),
    items: Type.Optional(Type.Array(OrderItem, { maxItems: 500 })),
    requested_date: Type.Optional(RequestedDate),
    time_window: Type.Optional(TimeWindow),
    requirements: Type.Optional(Requirements),
    priority: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3, default: 1, description: '1 low, 2 normal, 3 high' }),
    ),
    is_urgent: Type.Optional(Type.Boolean({ default: false })),
    // No `default` keyword: AJV would write it into every body, and an account whose proof settings
    // turn signatures off could never have an order without one (orders/proof-settings.ts).
    requires_signature: Type.Optional(
      Type.Boolean({
        description:
          'Default true, unless the account’s proof settings turn signatures off; false never lowers a signature the account requires',
      }),
    ),
    requires_photo: Type.Optional(Type.Boolean({ default: false })),
    requires_pin: Type.Optional(
      Type.Boolean({ description: 'Ask the customer’s delivery PIN even if the account’s proof settings do not' }),
    ),
    requires_id_check: Type.Optional(Type.Boolean({ description: 'Record the receiver’s ID document' })),
    requires_age_check: Type.Optional(
      Type.Boolean({ description: 'The receiver must be 18 or older (an ID document is recorded)' }),
    ),
    cash_on_delivery: Type.Optional(Money('Amount to collect on delivery; 0 when not applicable')),
    customer_notes: Type.Optional(Str()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, $id: 'OrderCreateParams' },
);
export type OrderCreate = Static<typeof OrderCreate>;

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
    pickup_address: Type.Union([PickupAddress, Type.Null()], { description: PICKUP_DESCRIPTION }),
    geocode: Type.Union([Geocode, Type.Null()], {
      description:
        'Set when the address came without coordinates and a geocoder is configured (RUTA_GEOCODER_URL); null when they came with it',
    }),
    items: Type.Array(OrderItem),
    weight_kg: Type.Number(),
    packages: Type.Integer(),
    cash_on_delivery: Type.Number(),
    shipping_cost: Type.Number(),
    currency: Type.String(),
    requested_date: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'The instant requested. A date sent without a time is that day\u2019s first instant in `timezone`, written with the zone\u2019s offset (2026-11-25T00:00:00-05:00)',
      }),
    ),
    requested_day: Nullable(
      Type.String({
        format: 'date',
        description: 'The local day of requested_date in `timezone` (YYYY-MM-DD): the day the order is due',
      }),
    ),
    timezone: Type.String({
      description:
        'IANA zone of the order\u2019s days and times of day (requested_day, time_window), fixed at creation: its account\u2019s depot\u2019s, else its account\u2019s, else the carrier\u2019s',
    }),
    time_window: Nullable(TimeWindow),
    requirements: Requirements,
    priority: Type.Integer(),
    is_urgent: Type.Boolean(),
    requires_signature: Type.Boolean(),
    requires_photo: Type.Boolean(),
    proof_requirements: ProofRequirements,
    pin: PinStatus,
    delivery_pin: Type.Optional(
      Type.String({
        pattern: '^[0-9]{4}$',
        description:
          'The 4-digit code the customer gives the courier (when proof_requirements.pin is required). Only the merchant sees it; couriers, dispatchers and the tracking page never do',
      }),
    ),
    customer_notes: Nullable(Type.String()),
    metadata: Metadata,
    courier: Nullable(Type.Object({ id: Type.String(), name: Type.String() })),
    route: Nullable(Type.String()),
    loaded_at: Type.Optional(
      Nullable(
        Type.String({
          format: 'date-time',
          description:
            "When the parcel's label was scanned into the courier's vehicle (POST /v1/orders/{id}/load); null until then",
        }),
      ),
    ),
    cancellation_reason: Nullable(Type.String()),
    failure_reason: Nullable(Type.String()),
    failure_notes: Nullable(
      Type.String({
        description:
          'What the courier wrote on the last failed attempt (the `notes` of POST /v1/orders/{id}/fail); null without notes',
      }),
    ),
    attempts: Type.Integer(),
    attempt_position: Nullable(AttemptPosition),
    collected_amount: Type.Optional(
      Nullable(
        Type.Number({
          description:
            'Only in GET /v1/orders filtered by cod_status: the amount its proof of delivery recorded collecting (GET /v1/orders/{id}/proof), beside cash_on_delivery; null when none was recorded',
        }),
      ),
    ),
    delivery_instructions: Nullable(
      Type.String({ description: 'Written by the customer on the tracking page before departure' }),
    ),
    safe_place: Nullable(Type.String({ description: 'Where to leave it, from the customer (tracking page)' })),
    feedback: Nullable(
      Type.Object(
        {
          rating: Type.Integer({ minimum: 1, maximum: 5 }),
          comment: Nullable(Type.String()),
          created_at: Type.String({ format: 'date-time' }),
        },
        { description: 'The customer\u2019s rating of the delivery, given once on the tracking page' },
      ),
    ),
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
    accuracy_m: Nullable(
      Type.Number({ description: 'The fix\u2019s accuracy radius, metres, when the move sent one' }),
    ),
    recorded_at: Nullable(
      Type.String({ format: 'date-time', description: 'When the move\u2019s fix was taken, when it sent one' }),
    ),
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
