import { type Static, Type } from 'typebox';
import { AUTO_DISPATCH_MODES } from '../../shared/db/tables/dispatch_settings.js';
import { Nullable } from '../../shared/params.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const AutoDispatch = Type.Enum([...AUTO_DISPATCH_MODES], {
  $id: 'AutoDispatchMode',
  description:
    '`off`: nothing automatic; `suggest`: the console offers the ranked couriers of every new order; `assign`: a worker inserts each same-day order into the best courier\u2019s route within 30 s of its creation',
});

export const DispatchSettings = Type.Object(
  {
    object: Type.Literal('dispatch_settings'),
    livemode: Type.Boolean(),
    auto_dispatch: AutoDispatch,
    accounts: Type.Array(
      Type.Object({
        account: Type.String(),
        auto_dispatch: AutoDispatch,
        updated_at: Type.String({ format: 'date-time' }),
      }),
      { description: 'Accounts whose own setting overrides the carrier\u2019s' },
    ),
    updated_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'DispatchSettings' },
);
export type DispatchSettings = Static<typeof DispatchSettings>;

export const DispatchSettingsUpdate = Type.Object(
  {
    auto_dispatch: Type.Optional(AutoDispatch),
    accounts: Type.Optional(
      Type.Array(
        Type.Object(
          {
            account: Id,
            auto_dispatch: Type.Union([AutoDispatch, Type.Null()], { description: 'null removes the override' }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 100 },
      ),
    ),
  },
  { additionalProperties: false, $id: 'DispatchSettingsUpdateParams' },
);
export type DispatchSettingsUpdate = Static<typeof DispatchSettingsUpdate>;

const Broken = Type.Object(
  {
    constraint: Type.Union([
      Type.Literal('time_window'),
      Type.Literal('capacity'),
      Type.Literal('shift'),
      Type.Literal('skills'),
      Type.Literal('route_limit'),
      Type.Literal('break'),
    ]),
    order_id: Type.String({ description: 'The stop where it shows' }),
    message: Type.String(),
  },
  { $id: 'DispatchViolation' },
);

const StopEta = Type.Object(
  {
    order_id: Type.String(),
    kind: Type.Optional(
      Type.Literal('pickup', {
        description: 'Present on a pickup-and-delivery order\u2019s pickup stop; absent on deliveries',
      }),
    ),
    position: Type.Integer({ description: 'Stop number on the route after the insertion (finished stops count)' }),
    arrival_at: Type.String({ format: 'date-time' }),
    service_start_at: Type.String({ format: 'date-time' }),
    previous_arrival_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'The arrival before the insertion (null for the inserted order)',
    }),
  },
  { $id: 'DispatchStopEta' },
);

export const Suggestion = Type.Object(
  {
    courier: Type.Object({ id: Type.String(), name: Type.String() }),
    route: Type.Union([Type.String(), Type.Null()], {
      description: 'The courier\u2019s current route; null: a new route is made',
    }),
    position: Type.Integer({ description: 'The stop number the order would get (its delivery)' }),
    pickup_position: Type.Optional(
      Type.Integer({
        description:
          'A pickup-and-delivery order (pickup_address): the stop number of its pickup, before `position` on the same route',
      }),
    ),
    added_km: Type.Number(),
    added_minutes: Type.Number(),
    feasible: Type.Boolean({ description: 'Breaks nothing the route did not already break' }),
    violations: Type.Array(Broken),
    starts_from: Type.Union([Type.Literal('position'), Type.Literal('depot')]),
    stops: Type.Array(StopEta, { description: 'Every remaining stop, with its new ETA' }),
  },
  { $id: 'DispatchSuggestion' },
);
export type Suggestion = Static<typeof Suggestion>;

const Unavailable = Type.Object(
  {
    courier: Type.Object({ id: Type.String(), name: Type.String() }),
    route: Type.Union([Type.String(), Type.Null()], { description: 'Its route of the order\u2019s day' }),
    reason: Type.Literal('no_start', {
      description:
        '`no_start`: nowhere to start from: no start depot (its own, its route plan\u2019s or the account\u2019s) and no position recorded',
    }),
    message: Type.String({ description: 'Why, and what to do about it, for the dispatcher' }),
  },
  { $id: 'DispatchUnavailableCourier' },
);

export const SuggestionList = Type.Object(
  {
    object: Type.Literal('list'),
    order: Type.String(),
    auto_dispatch: AutoDispatch,
    data: Type.Array(Suggestion, { description: 'Couriers on duty, best first' }),
    has_more: Type.Boolean(),
    unavailable: Type.Array(Unavailable, {
      description:
        'Couriers on duty (with a route of the order\u2019s day) that could not be ranked, and why; not in `data`, whatever its limit',
    }),
  },
  { $id: 'DispatchSuggestionList' },
);
export type SuggestionList = Static<typeof SuggestionList>;

export const DispatchBody = Type.Object(
  {
    courier_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'Insert into this courier\u2019s route at its cheapest position, even if it breaks a constraint (listed in the answer); omitted: the best courier that breaks nothing',
      }),
    ),
  },
  { additionalProperties: false, $id: 'DispatchParams' },
);
export type DispatchBody = Static<typeof DispatchBody>;

export const DispatchResult = Type.Object(
  {
    object: Type.Literal('dispatch'),
    order: Type.String(),
    route: Type.String(),
    suggestion: Suggestion,
  },
  { $id: 'DispatchResult' },
);
export type DispatchResult = Static<typeof DispatchResult>;

export const ReoptimizeBody = Type.Object(
  {
    time_limit_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000, description: 'Default 1000' })),
    apply: Type.Optional(Type.Boolean({ description: 'Commit the proposal (default false: only propose)' })),
    order_ids: Type.Optional(
      Type.Array(Id, {
        maxItems: 2000,
        description: 'With apply: commit exactly this proposal (the remaining stops in order) instead of solving again',
      }),
    ),
    route_version: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'With apply: the proposal\u2019s route_version; 409 route_changed if the route changed since',
      }),
    ),
  },
  { additionalProperties: false, $id: 'ReoptimizeParams' },
);
export type ReoptimizeBody = Static<typeof ReoptimizeBody>;

const Leg = Type.Object({
  order_ids: Type.Array(Type.String()),
  stops: Type.Array(StopEta),
  distance_km: Type.Number(),
  duration_min: Type.Number(),
  end_at: Type.String({ format: 'date-time' }),
  violations: Type.Array(Broken),
});

export const RouteProposal = Type.Object(
  {
    object: Type.Literal('route_proposal'),
    route: Type.String(),
    route_version: Type.String({ description: 'Names the route as it was read; apply with it' }),
    starts_from: Type.Union([Type.Literal('position'), Type.Literal('depot')]),
    start: Type.Object(
      { lat: Type.Number(), lng: Type.Number() },
      {
        description:
          'Where the courier is taken to start from: its last position, or its start depot before it sets off',
      },
    ),
    start_at: Type.String({ format: 'date-time' }),
    kept: Type.Array(Type.String(), { description: 'Finished stops, kept first as they are' }),
    current: Leg,
    proposed: Leg,
    saving: Type.Object({ distance_km: Type.Number(), duration_min: Type.Number() }),
    applied: Type.Boolean(),
  },
  { $id: 'RouteProposal' },
);
export type RouteProposal = Static<typeof RouteProposal>;
