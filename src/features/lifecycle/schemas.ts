import { type Static, type TSchema, Type } from 'typebox';
import { ID_DOCUMENT_TYPES } from '../../shared/db/tables/proof_settings.js';
import { COD_STATUSES, PAYMENT_METHODS, RELATIONSHIPS } from '../../shared/db/tables/proofs.js';
import { EmptyBody } from '../../shared/params.js';
import { MAX_MONEY, RequestedDate, TimeWindow } from '../orders/schemas.js';
import { type Action, FAILURE_REASONS } from './transitions.js';

// Stored values are defined with the table; the API shows the same ones.
export { COD_STATUSES, PAYMENT_METHODS, RELATIONSHIPS } from '../../shared/db/tables/proofs.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Notes = Type.String({ maxLength: 500 });

export const AssignBody = Type.Object(
  {
    courier_id: Id,
    route_id: Type.Optional(Id),
  },
  { additionalProperties: false, $id: 'OrderAssignParams' },
);
export type AssignBody = Static<typeof AssignBody>;

/** The phone's fix when the courier tapped the move (docs/api.md "Positions of moves"). */
export const MovePosition = Type.Object(
  {
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    lng: Type.Number({ minimum: -180, maximum: 180 }),
    accuracy_m: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100_000,
        description: 'The fix\u2019s accuracy radius in metres (the browser\u2019s coords.accuracy)',
      }),
    ),
    recorded_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When the fix was taken (the tap; an offline-queued move arrives later). The request\u2019s time when absent. A fix more than 5 minutes ahead of the server\u2019s clock or more than 48 hours behind it is dropped: the move goes through without a position',
      }),
    ),
  },
  {
    additionalProperties: false,
    $id: 'MovePosition',
    description: 'Where the phone was when the courier tapped the move',
  },
);
export type MovePosition = Static<typeof MovePosition>;

/** Optional on every courier move: a phone may refuse its position, and the move still counts. */
const positionField = { position: Type.Optional(MovePosition) };

/** The courier moves without other fields: only the optional position. */
export const MoveBody = Type.Object(positionField, { additionalProperties: false, $id: 'OrderMoveParams' });
export type MoveBody = Static<typeof MoveBody>;

/** The receiver's ID document (id_check, age_check). */
export const IdDocument = Type.Object(
  {
    type: Type.Enum([...ID_DOCUMENT_TYPES], {
      description:
        '`national_id` (DNI, CPF, INE, cédula…), `foreign_id` (carné de extranjería), `passport`, `driver_license`, `other`',
    }),
    number: Type.String({ minLength: 1, maxLength: 40 }),
  },
  { additionalProperties: false },
);

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
    lat: Type.Optional(
      Type.Number({
        minimum: -90,
        maximum: 90,
        description: 'Older form of position.lat; position wins when both are sent',
      }),
    ),
    lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
    ...positionField,
    pin: Type.Optional(
      Type.String({
        pattern: '^[0-9]{4}$',
        description:
          'The customer’s 4-digit delivery PIN, when proof_requirements.pin is required. A wrong one is 422 pin_mismatch; the fifth locks it (409 pin_locked)',
      }),
    ),
    id_document: Type.Optional(IdDocument),
    age_verified: Type.Optional(
      Type.Boolean({ description: 'The courier saw on the ID document that the receiver is 18 or older (age_check)' }),
    ),
  },
  { additionalProperties: false, $id: 'OrderDeliverParams' },
);
export type DeliverBody = Static<typeof DeliverBody>;

export const FailBody = Type.Object(
  { reason: Type.Enum([...FAILURE_REASONS]), notes: Type.Optional(Notes), ...positionField },
  { additionalProperties: false, $id: 'OrderFailParams' },
);
export type FailBody = Static<typeof FailBody>;

export const RescheduleBody = Type.Object(
  { requested_date: RequestedDate, time_window: Type.Optional(TimeWindow) },
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
  validate: EmptyBody,
  assign: AssignBody,
  ready: MoveBody,
  pickup: MoveBody,
  depart: MoveBody,
  approach: MoveBody,
  arrive: MoveBody,
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
    accuracy_m: Type.Union([Type.Number(), Type.Null()], { description: 'The fix\u2019s accuracy radius, metres' }),
    distance_from_address_m: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'Metres from the delivery address; null without a position or without the address\u2019s coordinates',
    }),
    far_from_address: Type.Union([Type.Boolean(), Type.Null()], {
      description:
        'Beyond RUTA_FAR_FROM_ADDRESS_M even allowing for the accuracy (distance \u2212 accuracy_m); null when the distance is unknown',
    }),
    delivered_at: Type.String({ format: 'date-time' }),
    id_document: Type.Union([IdDocument, Type.Null()]),
    age_verified: Type.Union([Type.Boolean(), Type.Null()], { description: 'Null when the age was not asked' }),
    pin: Type.Union([Type.Literal('verified'), Type.Literal('overridden'), Type.Null()], {
      description:
        '`verified`: the customer’s PIN was given; `overridden`: by a dispatcher after it locked; null: no PIN',
    }),
  },
  { $id: 'ProofOfDelivery' },
);
export type ProofOfDelivery = Static<typeof ProofOfDelivery>;
