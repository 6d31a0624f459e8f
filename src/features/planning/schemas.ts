import { type Static, Type } from 'typebox';
import { ROUTE_PLAN_STATUSES } from '../../shared/db/tables/route_plans.js';
import { Nullable } from '../../shared/params.js';
import { ShiftFields } from '../dispatch/schemas.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });

export const DepotCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    lng: Type.Number({ minimum: -180, maximum: 180 }),
    address: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'IANA zone, e.g. America/Lima; default RUTA_DEFAULT_TIMEZONE',
      }),
    ),
    shift_start: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
          description:
            'HH:mm: when the depot\u2019s working day starts, for couriers without a shift; default from RUTA_DEFAULT_SHIFT',
        }),
      ),
    ),
    shift_end: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
          description: 'HH:mm: when the depot\u2019s working day ends; default from RUTA_DEFAULT_SHIFT',
        }),
      ),
    ),
  },
  { additionalProperties: false, $id: 'DepotCreateParams' },
);
export type DepotCreate = Static<typeof DepotCreate>;

export const Depot = Type.Object(
  {
    id: Type.String({ examples: ['dep_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('depot'),
    livemode: Type.Boolean(),
    name: Type.String(),
    lat: Type.Number(),
    lng: Type.Number(),
    address: Nullable(Type.String()),
    timezone: Type.String(),
    shift_start: Type.String({
      description:
        'HH:mm: the working day of couriers without a shift starts (the depot\u2019s, else RUTA_DEFAULT_SHIFT)',
    }),
    shift_end: Type.String({ description: 'HH:mm: their working day ends' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Depot' },
);
export type Depot = Static<typeof Depot>;

export const DepotList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Depot), has_more: Type.Boolean() },
  { $id: 'DepotList' },
);

export const DepotListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type DepotListQuery = Static<typeof DepotListQuery>;

export const PlanCourier = Type.Object(
  { courier_id: Id, ...ShiftFields },
  { additionalProperties: false, $id: 'RoutePlanCourier', description: 'A courier, with fields that override its own' },
);
export type PlanCourier = Static<typeof PlanCourier>;

export const Objective = Type.Enum(['min_distance', 'min_vehicles', 'balanced'], {
  $id: 'RoutePlanObjective',
  description:
    'min_distance: shortest total distance; min_vehicles: fewest routes, then distance; balanced: routes capped near an even share of the stops, at most 20 % longer in total than min_distance would give (else the min_distance answer)',
});

export const PlanCreate = Type.Object(
  {
    date: Type.String({
      format: 'date',
      description:
        'The day planned, YYYY-MM-DD, in the depot\u2019s timezone. Today\u2019s plan leaves no earlier than the request: windows already over are unassigned.',
    }),
    depot: Id,
    couriers: Type.Array(PlanCourier, { minItems: 1, maxItems: 200 }),
    order_ids: Type.Optional(
      Type.Array(Id, {
        minItems: 1,
        maxItems: 2000,
        uniqueItems: true,
        description: 'Default: every assignable order of the environment due that date (or undated)',
      }),
    ),
    objective: Type.Optional(Objective),
    time_limit_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 })),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 })),
  },
  { additionalProperties: false, $id: 'RoutePlanCreateParams' },
);
export type PlanCreate = Static<typeof PlanCreate>;

/** What an edit may break; the same names as the reasons for leaving an order out. */
export const VIOLATIONS = ['time_window', 'capacity', 'shift', 'skills', 'route_limit', 'break', 'pair'] as const;

const PlanViolation = Type.Object(
  {
    constraint: Type.Enum([...VIOLATIONS]),
    message: Type.String({ examples: ['Served at 12:40, after its window 09:00–12:00'] }),
  },
  { $id: 'RoutePlanViolation' },
);

const PlanStop = Type.Object(
  {
    order_id: Type.String(),
    kind: Type.Optional(
      Type.Union([Type.Literal('pickup'), Type.Literal('delivery')], {
        description:
          '`pickup`: where a pickup-and-delivery order is collected (its pickup_address), before its `delivery` stop on the same route. Absent in plans made before pairs: delivery',
      }),
    ),
    arrival_at: Type.String({ format: 'date-time' }),
    service_start_at: Type.String({ format: 'date-time' }),
    departure_at: Type.String({ format: 'date-time' }),
    load_packages: Type.Number({ description: 'Packages still on board after this stop' }),
    load_kg: Type.Number({ description: 'Kilograms still on board after this stop' }),
    violations: Type.Array(PlanViolation, {
      description: 'Constraints broken at this stop: empty as optimized; an edit may break some (warnings)',
    }),
  },
  { $id: 'RoutePlanStop' },
);

const PlanRoute = Type.Object(
  {
    courier_id: Type.String(),
    stops: Type.Array(PlanStop),
    start_at: Type.String({ format: 'date-time' }),
    end_at: Type.String({ format: 'date-time' }),
    distance_km: Type.Number(),
    duration_min: Type.Number(),
    break: Type.Optional(
      Type.Object(
        {
          after_stops: Type.Integer({ description: 'Taken after this many stops (0: before the first)' }),
          start_at: Type.String({ format: 'date-time' }),
          end_at: Type.String({ format: 'date-time' }),
        },
        { description: 'The courier\u2019s break on this route, when it takes one' },
      ),
    ),
  },
  { $id: 'RoutePlanRoute' },
);

/** `manual`: an edit took the order off its route. */
export const UNASSIGNED_REASONS = [
  'no_coordinates',
  'time_window',
  'capacity',
  'shift',
  'skills',
  'route_limit',
  'manual',
] as const;

export const PlanResult = Type.Object({
  routes: Type.Array(PlanRoute),
  unassigned: Type.Array(
    Type.Object(
      { order_id: Type.String(), reason: Type.Enum([...UNASSIGNED_REASONS]) },
      { $id: 'RoutePlanUnassigned' },
    ),
  ),
  totals: Type.Object(
    {
      routes: Type.Integer(),
      orders: Type.Integer({ description: 'Orders placed on a route' }),
      unassigned: Type.Integer(),
      distance_km: Type.Number(),
      duration_min: Type.Number(),
      violations: Type.Integer({ description: 'Constraints broken, over every stop (0 as optimized)' }),
    },
    { $id: 'RoutePlanTotals' },
  ),
});
export type PlanResult = Static<typeof PlanResult>;

export const RoutePlan = Type.Object(
  {
    id: Type.String({ examples: ['rplan_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('route_plan'),
    livemode: Type.Boolean(),
    status: Type.Enum([...ROUTE_PLAN_STATUSES], { $id: 'RoutePlanStatus' }),
    progress: Type.Number({ minimum: 0, maximum: 1 }),
    date: Type.String(),
    depot: Type.String(),
    objective: Objective,
    time_limit_ms: Type.Integer(),
    seed: Type.Integer(),
    couriers: Type.Array(PlanCourier),
    order_ids: Type.Array(Type.String(), { description: 'The orders planned (those with coordinates and without)' }),
    routes: Nullable(Type.Array(PlanRoute)),
    unassigned: Nullable(PlanResult.properties.unassigned),
    totals: Nullable(PlanResult.properties.totals),
    failure_message: Nullable(Type.String()),
    edited_at: Nullable(Type.String({ format: 'date-time', description: 'The last edit (PATCH), if any' })),
    committed_at: Nullable(Type.String({ format: 'date-time' })),
    route_ids: Type.Array(Type.String(), { description: 'The routes a commit created' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'RoutePlan' },
);
export type RoutePlan = Static<typeof RoutePlan>;

/** Commit may have no body; `force` is needed only when an edit left broken constraints. */
export const CommitBody = Type.Object(
  {
    force: Type.Optional(
      Type.Boolean({
        description: 'Commit even though stops break constraints (totals.violations > 0); otherwise 409',
      }),
    ),
  },
  { additionalProperties: false, $id: 'RoutePlanCommitParams' },
);
export type CommitBody = Static<typeof CommitBody>;

export const PlanEdit = Type.Object(
  {
    routes: Type.Array(
      Type.Object(
        {
          courier_id: Id,
          order_ids: Type.Array(Id, {
            maxItems: 2000,
            description:
              'The route\u2019s stops, in order. A pickup-and-delivery order is named twice (its pickup, then its delivery), or once: its pickup then goes just before its delivery',
          }),
        },
        { additionalProperties: false, $id: 'RoutePlanRouteEdit' },
      ),
      {
        minItems: 1,
        maxItems: 200,
        description:
          'The routes that change, each whole. Routes not named keep their stops, less any order named here; an order taken off a named route and named nowhere is left out (reason manual).',
      },
    ),
  },
  { additionalProperties: false, $id: 'RoutePlanEditParams' },
);
export type PlanEdit = Static<typeof PlanEdit>;
