import { type Static, type TSchema, Type } from 'typebox';
import { COD_STATUSES, PAYMENT_METHODS, RELATIONSHIPS } from '../../shared/db/tables/proofs.js';
import { MAX_MONEY, TimeWindow } from '../orders/schemas.js';
import type { Action } from './transitions.js';

export const FAILURE_REASONS = [
  'customer_absent',
  'wrong_address',
  'customer_rejected',
  'package_damaged',
  'unsafe_location',
  'other',
] as const;
// Stored values are defined with the table; the API shows the same ones.
export { COD_STATUSES, PAYMENT_METHODS, RELATIONSHIPS } from '../../shared/db/tables/proofs.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Notes = Type.String({ maxLength: 500 });
const Empty = Type.Object({}, { additionalProperties: false });

export const AssignBody = Type.Object(
  {
    courier_id: Id,
    route_id: Type.Optional(Id),
  },
  { additionalProperties: false, $id: 'OrderAssignParams' },
);
export type AssignBody = Static<typeof AssignBody>;

export const DeliverBody = Type.Object(
  {
    receiver_name: Type.String({ minLength: 1, maxLength: 500 }),
    receiver_document: Type.Optional(Type.String({ maxLength: 500 })),
    relationship: Type.Optional(Type.Enum([...RELATIONSHIPS])),
    signature_file: Type.Optional(Id),
    photo_files: Type.Optional(Type.Array(Id, { maxItems: 20 })),
    collected_amount: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_MONEY })),
    payment_method: Type.Optional(Type.Enum([...PAYMENT_METHODS])),
    delivered_packages: Type.Optional(
      Type.Integer({
        minimum: 1,
        // Every integer input is bounded (an unbounded one overflows PostgreSQL's integer column):
        // an order holds at most 500 items of at most 10,000 each.
        maximum: 5_000_000,
        description: 'Fewer than the order\u2019s packages means partially_delivered',
      }),
    ),
    lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  },
  { additionalProperties: false, $id: 'OrderDeliverParams' },
);
export type DeliverBody = Static<typeof DeliverBody>;

export const FailBody = Type.Object(
  { reason: Type.Enum([...FAILURE_REASONS]), notes: Type.Optional(Notes) },
  { additionalProperties: false, $id: 'OrderFailParams' },
);
export type FailBody = Static<typeof FailBody>;

export const RescheduleBody = Type.Object(
  { requested_date: Type.String({ format: 'date-time' }), time_window: Type.Optional(TimeWindow) },
  { additionalProperties: false, $id: 'OrderRescheduleParams' },
);
export type RescheduleBody = Static<typeof RescheduleBody>;

export const ReturnBody = Type.Object(
  { notes: Type.Optional(Notes) },
  { additionalProperties: false, $id: 'OrderReturnParams' },
);
export type ReturnBody = Static<typeof ReturnBody>;

/** Request body of each move (cancel has its own route in the orders API). */
export const MOVE_BODIES: Record<Exclude<Action, 'cancel'>, TSchema> = {
  validate: Empty,
  assign: AssignBody,
  ready: Empty,
  pickup: Empty,
  depart: Empty,
  approach: Empty,
  arrive: Empty,
  deliver: DeliverBody,
  fail: FailBody,
  reschedule: RescheduleBody,
  return: ReturnBody,
};

export const ProofOfDelivery = Type.Object(
  {
    object: Type.Literal('proof_of_delivery'),
    order: Type.String(),
    receiver_name: Type.String(),
    receiver_document: Type.Union([Type.String(), Type.Null()]),
    relationship: Type.Union([Type.Enum([...RELATIONSHIPS]), Type.Null()]),
    signature_url: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
    photo_urls: Type.Array(Type.String({ format: 'uri' })),
    collected_amount: Type.Union([Type.Number(), Type.Null()]),
    payment_method: Type.Union([Type.Enum([...PAYMENT_METHODS]), Type.Null()]),
    cod_status: Type.Union([Type.Enum([...COD_STATUSES]), Type.Null()]),
    delivered_packages: Type.Integer(),
    lat: Type.Union([Type.Number(), Type.Null()]),
    lng: Type.Union([Type.Number(), Type.Null()]),
    delivered_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'ProofOfDelivery' },
);
export type ProofOfDelivery = Static<typeof ProofOfDelivery>;
