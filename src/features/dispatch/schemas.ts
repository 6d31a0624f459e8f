import { type Static, Type } from 'typebox';
import { OrderStatusSchema } from '../orders/schemas.js';

export const VEHICLES = ['on_foot', 'bicycle', 'motorcycle', 'car', 'van', 'truck'] as const;

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Phone = Type.String({ pattern: '^\\+[0-9]{8,15}$', description: 'E.164: + followed by 8 to 15 digits' });
const Vehicle = Type.Enum([...VEHICLES]);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const CourierCreate = Type.Object(
  { name: Name, phone: Type.Optional(Phone), vehicle: Type.Optional(Vehicle) },
  { additionalProperties: false },
);
export type CourierCreate = Static<typeof CourierCreate>;

export const CourierUpdate = Type.Object(
  { name: Type.Optional(Name), phone: Type.Optional(Nullable(Phone)), vehicle: Type.Optional(Nullable(Vehicle)) },
  { additionalProperties: false },
);
export type CourierUpdate = Static<typeof CourierUpdate>;

export const LocationBody = Type.Object(
  {
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    lng: Type.Number({ minimum: -180, maximum: 180 }),
    recorded_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the device took the fix; defaults to now' }),
    ),
  },
  { additionalProperties: false },
);
export type LocationBody = Static<typeof LocationBody>;

const Location = Type.Object({
  lat: Type.Number(),
  lng: Type.Number(),
  recorded_at: Type.String({ format: 'date-time' }),
});

export const Courier = Type.Object(
  {
    id: Type.String({ examples: ['cou_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('courier'),
    livemode: Type.Boolean(),
    account: Nullable(
      Type.String({ description: 'The account of a sandbox courier; null for the carrier\u2019s own' }),
    ),
    name: Type.String(),
    phone: Nullable(Type.String()),
    vehicle: Nullable(Vehicle),
    location: Nullable(Location),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Courier' },
);
export type Courier = Static<typeof Courier>;

export const CourierList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Courier), has_more: Type.Boolean() },
  { title: 'CourierList' },
);

export const CourierListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type CourierListQuery = Static<typeof CourierListQuery>;

export const LocationList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Location), has_more: Type.Boolean() },
  { title: 'CourierLocationList' },
);

export const RouteCreate = Type.Object(
  {
    courier_id: Type.String({ minLength: 1, maxLength: 100 }),
    order_ids: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1,
      maxItems: 200,
      uniqueItems: true,
      description: 'Orders in stop order',
    }),
    date: Type.Optional(Type.String({ format: 'date', description: 'Day of the route, YYYY-MM-DD' })),
  },
  { additionalProperties: false },
);
export type RouteCreate = Static<typeof RouteCreate>;

export const Route = Type.Object(
  {
    id: Type.String({ examples: ['rte_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('route'),
    livemode: Type.Boolean(),
    courier: Type.Object({ id: Type.String(), name: Type.String() }),
    date: Nullable(Type.String()),
    stops: Type.Array(
      Type.Object({
        position: Type.Integer({ description: '1-based stop number' }),
        order: Type.String(),
        tracking_code: Type.String(),
        status: OrderStatusSchema,
        on_route: Type.Boolean({ description: 'False once the order was re-assigned elsewhere' }),
      }),
    ),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Route' },
);
export type Route = Static<typeof Route>;
