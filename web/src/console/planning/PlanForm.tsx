import type { FormEvent } from 'react';
import { type Courier, hoursIn } from '../../shared/api';
import { typedNumber } from '../../shared/text';
import type { Depot, Objective } from './common';

/** Short labels, so the select shows them whole; what each does is said under it. */
const OBJECTIVES: { value: Objective; label: string; hint: string }[] = [
  { value: 'min_distance', label: 'Shortest distance', hint: 'The least total distance; work may be uneven.' },
  {
    value: 'min_vehicles',
    label: 'Fewest couriers',
    hint: 'As few couriers as the orders allow, then the least distance.',
  },
  { value: 'balanced', label: 'Even work', hint: 'Stops spread evenly over the couriers, at most 20 % more distance.' },
];

/** `whole`: the API takes integers only; km may have decimals ("12,5" is 12.5). */
const LIMITS = [
  { k: 'max_stops', label: 'Most stops', whole: true, noun: 'stops', example: '12' },
  { k: 'max_route_minutes', label: 'Most minutes', whole: true, noun: 'minutes', example: '240' },
  { k: 'max_route_km', label: 'Most km', whole: false, noun: 'km', example: '12.5' },
] as const;
type LimitKey = (typeof LIMITS)[number]['k'];
/** Per courier id, the limits typed for this plan ('' or absent: the courier's own). */
export type Limits = Record<string, Partial<Record<LimitKey, string>>>;

/** The key of `errors` that marks one courier's limit box as the one the API refused. */
export const limitError = (courierId: string, field: string) => `couriers:${courierId}.${field}`;

/** The overrides of one courier: only the limits typed in, read as limitProblems reads them. */
export function limitsBody(l: Limits[string] | undefined): Partial<Record<LimitKey, number>> {
  const out: Partial<Record<LimitKey, number>> = {};
  for (const { k } of LIMITS) {
    const v = l?.[k]?.trim();
    if (v) out[k] = typedNumber(v);
  }
  return out;
}

/**
 * The limits typed that are no number (or no whole one where the API takes integers), per field:
 * the form refuses them before sending. They were sent as NaN, which JSON writes as null (the
 * courier's own limit), or a number box dropped "3,5" as empty: the plan ran without them, silently.
 */
export function limitProblems(l: Limits[string] | undefined): { k: LimitKey; message: string }[] {
  return LIMITS.flatMap(({ k, whole, noun, example }) => {
    const v = l?.[k]?.trim();
    if (!v) return [];
    const n = typedNumber(v);
    if (Number.isFinite(n) && (!whole || Number.isInteger(n))) return [];
    return [{ k, message: `Enter ${whole ? 'a whole number' : 'a number'} of ${noun}, such as ${example}.` }];
  });
}

/**
 * What the plan will use (shift.ts's shiftOf): the courier's own shift, else the working day of the
 * depot it starts from (the plan's depot when it names none), each end on its own (never 00:00),
 * named with that depot's zone, the one the server reads it in (problem.ts).
 */
function shiftText(c: Courier, depots: Depot[] | null, planDepot: Depot | undefined): string {
  const from = (c.start_depot ? depots?.find((d) => d.id === c.start_depot) : undefined) ?? planDepot;
  const start = c.shift_start ?? from?.shift_start;
  const end = c.shift_end ?? from?.shift_end;
  const own = c.shift_start !== null && c.shift_end !== null;
  const bits = [
    start && end && from
      ? `shift ${hoursIn(start, end, from.timezone)}${own ? '' : ` (${c.start_depot ? `${from.name}\u2019s ` : ''}working day)`}`
      : 'the default working day',
  ];
  if (c.capacity_packages !== null) bits.push(`${c.capacity_packages} packages`);
  if (c.capacity_kg !== null) bits.push(`${c.capacity_kg} kg`);
  return bits.join(' · ');
}

/** The plan settings: date, depot, objective, time limit and the couriers taking part. */
export function PlanForm({
  uid,
  errors,
  date,
  setDate,
  depots,
  depotId,
  setDepotId,
  objective,
  setObjective,
  seconds,
  setSeconds,
  couriers,
  leftOut,
  setLeftOut,
  limits,
  setLimits,
  chosen,
  starting,
  isRunning,
  onSubmit,
}: {
  uid: string;
  errors: Record<string, string>;
  date: string;
  setDate: (v: string) => void;
  depots: Depot[] | null;
  depotId: string;
  setDepotId: (v: string) => void;
  objective: Objective;
  setObjective: (v: Objective) => void;
  seconds: string;
  setSeconds: (v: string) => void;
  couriers: Courier[] | null;
  leftOut: Set<string>;
  setLeftOut: (v: Set<string>) => void;
  limits: Limits;
  setLimits: (v: Limits) => void;
  chosen: Courier[];
  starting: boolean;
  isRunning: boolean;
  onSubmit: (e: FormEvent) => void;
}) {
  const extraErrors = errors[''];
  const ids = {
    date: `${uid}-date`,
    depot: `${uid}-depot`,
    objective: `${uid}-objective`,
    limit: `${uid}-limit`,
  };
  const fieldError = (name: string) =>
    errors[name] ? (
      <p className="field-error" id={`${uid}-${name}-err`} role="alert">
        {errors[name]}
      </p>
    ) : null;
  const described = (name: string) => (errors[name] ? `${uid}-${name}-err` : undefined);
  const boxAtFault = (couriers ?? []).some((c) => LIMITS.some(({ k }) => errors[limitError(c.id, k)]));
  /** The field's hint, and its error when it has one. */
  const hinted = (name: string) => [`${uid}-${name}-hint`, described(name)].filter(Boolean).join(' ');
  const depot = depots?.find((d) => d.id === depotId);

  return (
    <form className="plan-form" onSubmit={onSubmit} aria-label="Plan settings" noValidate>
      <div className={`field${errors.date ? ' has-error' : ''}`}>
        <label htmlFor={ids.date}>Date</label>
        <input
          id={ids.date}
          name="date"
          type="date"
          value={date}
          required
          aria-invalid={errors.date ? true : undefined}
          aria-describedby={described('date')}
          onChange={(e) => setDate(e.target.value)}
        />
        {fieldError('date')}
      </div>
      <div className={`field${errors.depot ? ' has-error' : ''}`}>
        <label htmlFor={ids.depot}>Depot</label>
        <select
          id={ids.depot}
          name="depot"
          value={depotId}
          aria-invalid={errors.depot ? true : undefined}
          aria-describedby={hinted('depot')}
          onChange={(e) => setDepotId(e.target.value)}
        >
          {!depotId && <option value="">—</option>}
          {(depots ?? []).map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
        <small className="muted field-hint" id={`${uid}-depot-hint`}>
          {depot ? `Times in ${depot.timezone}` : ''}
        </small>
        {fieldError('depot')}
      </div>
      <div className={`field${errors.objective ? ' has-error' : ''}`}>
        <label htmlFor={ids.objective}>Objective</label>
        <select
          id={ids.objective}
          name="objective"
          value={objective}
          aria-describedby={hinted('objective')}
          onChange={(e) => setObjective(e.target.value as Objective)}
        >
          {OBJECTIVES.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        <small className="muted field-hint" id={`${uid}-objective-hint`}>
          {OBJECTIVES.find((o) => o.value === objective)?.hint}
        </small>
        {fieldError('objective')}
      </div>
      <div className={`field${errors.time_limit_ms ? ' has-error' : ''}`}>
        <label htmlFor={ids.limit}>Time limit (seconds)</label>
        <input
          id={ids.limit}
          name="time_limit_ms"
          type="number"
          min={0.1}
          max={60}
          step="any"
          inputMode="decimal"
          value={seconds}
          aria-invalid={errors.time_limit_ms ? true : undefined}
          aria-describedby={described('time_limit_ms')}
          onChange={(e) => setSeconds(e.target.value)}
        />
        {fieldError('time_limit_ms')}
      </div>
      <fieldset
        // One courier's limit at fault marks its box only; any other error, the whole list.
        className={`plan-couriers${errors.couriers ? (boxAtFault ? ' has-row-error' : ' has-error') : ''}`}
        aria-describedby={described('couriers')}
      >
        <legend>
          Couriers ({chosen.length} of {couriers?.length ?? 0})
        </legend>
        {couriers === null ? (
          <p className="muted">Loading…</p>
        ) : couriers.length === 0 ? (
          <p className="muted">
            No active courier. <a href="#/couriers">Add couriers</a> first.
          </p>
        ) : (
          <>
            {/* Headers for the limits' columns: a typed value hides its placeholder. Each input has its own aria-label. */}
            <div className="plan-limits plan-limits-head" aria-hidden="true">
              {LIMITS.map(({ k, label }) => (
                <span key={k}>{label}</span>
              ))}
            </div>
            <ul className="pick-list">
              {couriers.map((c) => (
                <li key={c.id}>
                  <label>
                    <input
                      type="checkbox"
                      checked={!leftOut.has(c.id)}
                      onChange={(e) => {
                        const next = new Set(leftOut);
                        if (e.target.checked) next.delete(c.id);
                        else next.add(c.id);
                        setLeftOut(next);
                      }}
                    />
                    <span>{c.name}</span>
                    <small className="muted">{shiftText(c, depots, depot)}</small>
                  </label>
                  {!leftOut.has(c.id) && (
                    <span className="plan-limits">
                      {LIMITS.map(({ k, label, whole }) => (
                        // Text, not type="number": Chromium's number box gave "3,5" or "abc" as ''
                        // (no limit), so nothing could be said about it; limitProblems reads it.
                        <input
                          key={k}
                          type="text"
                          inputMode={whole ? 'numeric' : 'decimal'}
                          aria-label={`${label}, ${c.name}`}
                          aria-invalid={errors[limitError(c.id, k)] ? true : undefined}
                          aria-describedby={errors[limitError(c.id, k)] ? described('couriers') : undefined}
                          placeholder={c[k] == null ? label : `${label}: ${c[k]}`}
                          value={limits[c.id]?.[k] ?? ''}
                          onChange={(e) => setLimits({ ...limits, [c.id]: { ...limits[c.id], [k]: e.target.value } })}
                        />
                      ))}
                    </span>
                  )}
                </li>
              ))}
            </ul>
          </>
        )}
        {fieldError('couriers')}
      </fieldset>
      {extraErrors && (
        <p className="error-note" role="alert">
          {extraErrors}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={starting || isRunning}>
          {isRunning ? 'Optimizing…' : 'Optimize'}
        </button>
      </div>
    </form>
  );
}
