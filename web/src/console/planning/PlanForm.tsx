import type { FormEvent } from 'react';
import type { Courier } from '../../shared/api';
import type { Depot, Objective } from './common';

const OBJECTIVES: { value: Objective; label: string }[] = [
  { value: 'min_distance', label: 'Shortest distance' },
  { value: 'min_vehicles', label: 'Fewest couriers' },
];

function shiftText(c: Courier): string {
  const bits: string[] = [];
  if (c.shift_start || c.shift_end) bits.push(`shift ${c.shift_start ?? '00:00'}–${c.shift_end ?? '24:00'}`);
  if (c.capacity_packages !== null) bits.push(`${c.capacity_packages} packages`);
  if (c.capacity_kg !== null) bits.push(`${c.capacity_kg} kg`);
  return bits.length ? bits.join(' · ') : 'no shift or capacity set (whole day, no limit)';
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
          aria-describedby={described('depot')}
          onChange={(e) => setDepotId(e.target.value)}
        >
          {!depotId && <option value="">—</option>}
          {(depots ?? []).map((d) => (
            <option key={d.id} value={d.id}>
              {d.name} ({d.timezone})
            </option>
          ))}
        </select>
        {fieldError('depot')}
      </div>
      <div className={`field${errors.objective ? ' has-error' : ''}`}>
        <label htmlFor={ids.objective}>Objective</label>
        <select
          id={ids.objective}
          name="objective"
          value={objective}
          aria-describedby={described('objective')}
          onChange={(e) => setObjective(e.target.value as Objective)}
        >
          {OBJECTIVES.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
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
        className={`plan-couriers${errors.couriers ? ' has-error' : ''}`}
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
                  <small className="muted">{shiftText(c)}</small>
                </label>
              </li>
            ))}
          </ul>
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
