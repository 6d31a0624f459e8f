import { type Static, Type } from 'typebox';
import { COURIER_STATUSES, VEHICLES } from '../../shared/db/tables/couriers.js';
import { FINISHED_STATUSES } from '../../shared/db/tables/orders.js';
import { Nullable } from '../../shared/params.js';
import { Address } from '../orders/address-schemas.js';
import { OrderStatusSchema } from '../orders/schemas.js';

// Stored values are defined with the table; the API shows the same ones.
export { VEHICLES } from '../../shared/db/tables/couriers.js';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Phone = Type.String({ pattern: '^\\+[0-9]{8,15}$', description: 'E.164: + followed by 8 to 15 digits' });
const Vehicle = Type.Enum([...VEHICLES], { $id: 'Vehicle' });
const CourierStatus = Type.Enum([...COURIER_STATUSES], {
  $id: 'CourierStatus',
  description: 'disabled: the courier cannot sign in, and its phone sessions end at once',
});

const HHmm = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'HH:mm, local to the plan\u2019s depot',
});
const DepotId = Type.String({ minLength: 1, maxLength: 100, description: 'A depot id (dep_\u2026)' });

/** The vehicle and shift route plans use (DESIGN §10); every field may be null (no limit, no shift). */
const Skill = Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z0-9_-]+$' });
export const Skills = Type.Array(Skill, {
  maxItems: 20,
  uniqueItems: true,
  description: 'Lower-case words (`cold`, `large`): an order goes only to a courier with all of its requirements',
});
export const RouteEnds = ['depot', 'last_stop'] as const;
export const Break = Type.Object(
  {
    earliest: HHmm,
    latest: HHmm,
    duration_min: Type.Integer({ minimum: 1, maximum: 600 }),
  },
  {
    additionalProperties: false,
    $id: 'CourierBreak',
    description:
      'A break once in the shift, starting between earliest and latest (at a stop); a route over before earliest takes none',
  },
);

/**
 * The constraints of DESIGN §16 on a courier (and, in a plan's request, overriding its own):
 * skills, break, route limits and where the route ends. Null clears one.
 */
export const ConstraintFields = {
  skills: Type.Optional(Nullable(Skills)),
  break: Type.Optional(Nullable(Break)),
  max_route_minutes: Type.Optional(
    Nullable(Type.Integer({ minimum: 1, maximum: 1440, description: 'From the shift start to the route’s end' })),
  ),
  max_route_km: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 10_000 }))),
  max_stops: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2000 }))),
  route_end: Type.Optional(
    Nullable(
      Type.Enum([...RouteEnds], {
        description: '`depot`: back at end_depot (default); `last_stop`: the route ends at its last stop',
      }),
    ),
  ),
};

export const ShiftFields = {
  ...ConstraintFields,
  capacity_kg: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 100_000 }))),
  capacity_packages: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 100_000 }))),
  shift_start: Type.Optional(Nullable(HHmm)),
  shift_end: Type.Optional(Nullable(HHmm)),
  start_depot: Type.Optional(Nullable(DepotId)),
  end_depot: Type.Optional(Nullable(DepotId)),
};

export const CourierCreate = Type.Object(
  { name: Name, phone: Type.Optional(Phone), vehicle: Type.Optional(Vehicle), ...ShiftFields },
  { additionalProperties: false, $id: 'CourierCreateParams' },
);
export type CourierCreate = Static<typeof CourierCreate>;

export const CourierUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    phone: Type.Optional(Nullable(Phone)),
    vehicle: Type.Optional(Nullable(Vehicle)),
    status: Type.Optional(CourierStatus),
    ...ShiftFields,
  },
  { additionalProperties: false, $id: 'CourierUpdateParams' },
);
export type CourierUpdate = Static<typeof CourierUpdate>;

/** The bounds service.ts enforces on a fix's time (issue 18 #11). */
const WHEN =
  'At most 5 minutes ahead of the server, not before the courier was created (less 5 minutes) and not more than 7 days ago.';

export const LocationBody = Type.Object(
  {
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    lng: Type.Number({ minimum: -180, maximum: 180 }),
    recorded_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description: `When the device took the fix; defaults to now. ${WHEN}`,
      }),
    ),
  },
  { additionalProperties: false, $id: 'CourierLocationParams' },
);
export type LocationBody = Static<typeof LocationBody>;

const Lat = Type.Number({ minimum: -90, maximum: 90 });
const Lng = Type.Number({ minimum: -180, maximum: 180 });

export const LocationsBody = Type.Object(
  {
    points: Type.Array(
      Type.Object(
        {
          lat: Lat,
          lng: Lng,
          recorded_at: Type.String({ format: 'date-time', description: `When the device took the fix. ${WHEN}` }),
          accuracy_m: Type.Optional(Type.Number({ minimum: 0, maximum: 100_000, description: 'Accepted, not stored' })),
          speed_mps: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'Accepted, not stored' })),
          heading: Type.Optional(
            Type.Number({ minimum: 0, maximum: 360, description: 'Degrees from north; accepted, not stored' }),
          ),
        },
        { additionalProperties: false, $id: 'CourierLocationPoint' },
      ),
      { minItems: 1, maxItems: 100, description: 'Oldest first' },
    ),
  },
  { additionalProperties: false, $id: 'CourierLocationsParams' },
);
export type LocationsBody = Static<typeof LocationsBody>;

const Location = Type.Object(
  {
    lat: Type.Number(),
    lng: Type.Number(),
    recorded_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'CourierLocation' },
);

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
    status: CourierStatus,
    location: Nullable(Location),
    capacity_kg: Nullable(Type.Number()),
    capacity_packages: Nullable(Type.Integer()),
    shift_start: Nullable(Type.String()),
    shift_end: Nullable(Type.String()),
    start_depot: Nullable(Type.String()),
    end_depot: Nullable(Type.String()),
    rating: Type.Object(
      {
        average: Nullable(
          Type.Number({ description: 'Mean of its deliveries\u2019 customer ratings (1\u20135), 2 decimals' }),
        ),
        count: Type.Integer(),
      },
      { description: 'What customers rated the deliveries it made (tracking page)' },
    ),
    skills: Skills,
    break: Nullable(Break),
    max_route_minutes: Nullable(Type.Integer()),
    max_route_km: Nullable(Type.Number()),
    max_stops: Nullable(Type.Integer()),
    route_end: Type.Enum([...RouteEnds]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Courier' },
);
export type Courier = Static<typeof Courier>;

export const CourierList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Courier), has_more: Type.Boolean() },
  { $id: 'CourierList' },
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
  { $id: 'CourierLocationList' },
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
    date: Type.Optional(
      Type.String({
        format: 'date',
        description:
          "Day of the route, YYYY-MM-DD. Default: the day it is made, in the zone of the courier's start depot, else of its first order",
      }),
    ),
  },
  { additionalProperties: false, $id: 'RouteCreateParams' },
);
export type RouteCreate = Static<typeof RouteCreate>;

export const Route = Type.Object(
  {
    id: Type.String({ examples: ['rte_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('route'),
    livemode: Type.Boolean(),
    courier: Type.Object({ id: Type.String(), name: Type.String() }),
    date: Type.String({ format: 'date', description: 'Day of the route, YYYY-MM-DD (a local day)' }),
    stops: Type.Array(
      Type.Object(
        {
          position: Type.Integer({ description: '1-based stop number' }),
          order: Type.String(),
          kind: Type.Union([Type.Literal('pickup'), Type.Literal('delivery')], {
            description:
              '`pickup`: where a pickup-and-delivery order (one with its own pickup_address) is collected, before its `delivery` stop on this route; every other stop is `delivery`',
          }),
          tracking_code: Type.String(),
          status: OrderStatusSchema,
          address: Type.Object(Address.properties, {
            description: 'Where the stop is: the pickup address for a `pickup` stop, else the delivery address',
          }),
          on_route: Type.Boolean({ description: 'False once the order was re-assigned elsewhere' }),
          loaded_at: Nullable(
            Type.String({
              format: 'date-time',
              description: 'When its label was scanned into the vehicle; null: missing',
            }),
          ),
        },
        { $id: 'RouteStop' },
      ),
    ),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Route' },
);
export type Route = Static<typeof Route>;

/** GET /v1/couriers/{id}/done_today (done-today.ts): what a courier finished today, without the customer's phone or street. */
export const DoneStop = Type.Object(
  {
    object: Type.Literal('done_stop'),
    order: Type.String(),
    tracking_code: Type.String(),
    status: Type.Enum([...FINISHED_STATUSES]),
    customer_name: Type.String(),
    place: Nullable(Type.String({ description: 'The delivery address\u2019s district, else its city' })),
    route: Nullable(Type.String()),
    finished_at: Type.String({ format: 'date-time', description: 'When the order reached its status' }),
    timezone: Type.String({
      description: 'The zone whose today this is: the order\u2019s (its depot\u2019s, else its account\u2019s)',
    }),
  },
  { $id: 'DoneStop' },
);
export type DoneStop = Static<typeof DoneStop>;

export const DoneStopList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(DoneStop), has_more: Type.Boolean() },
  { $id: 'DoneStopList' },
);

export const RouteList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Route), has_more: Type.Boolean() },
  { $id: 'RouteList' },
);

export const RouteListQuery = Type.Object(
  {
    date: Type.Optional(
      Type.String({
        format: 'date',
        description:
          'Routes of this day (YYYY-MM-DD): their `date`, which a route made without one takes from the day it was made',
      }),
    ),
    courier: Type.Optional(Type.String({ maxLength: 100, description: 'Routes of this courier (cou_…)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type RouteListQuery = Static<typeof RouteListQuery>;
