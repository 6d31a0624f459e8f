import type { ReactNode } from 'react';
import { ApiFailure, type OrderStatus, STATUS_LABEL } from '../../shared/api';
import { AccountPicker } from '../AccountPicker';
import { type Filters, today } from './board-filters';

const STATUSES = Object.keys(STATUS_LABEL) as OrderStatus[];

/** Which control an API error belongs to, by the error's `param`. */
const FIELD_OF: Record<string, string> = {
  status: 'f-status',
  account: 'f-account',
  due_gte: 'f-day',
  due_lt: 'f-day',
  due_on: 'f-day',
  created_gte: 'f-day',
  created_lt: 'f-day',
  search: 'f-search',
};

/** The field an error is shown under, or null when it belongs to none (shown above the list). */
export function fieldOf(error: unknown): string | null {
  return error instanceof ApiFailure ? (FIELD_OF[error.param ?? ''] ?? null) : null;
}

/** A labelled control with its API error under it, announced and tied to it by aria-describedby. */
function Ctl(props: { id: string; label: string; error: unknown; children: (aria: object) => ReactNode }) {
  const mine = fieldOf(props.error) === props.id;
  const aria = mine ? { 'aria-invalid': true, 'aria-describedby': `${props.id}-err` } : {};
  return (
    <div className={`ctl${mine ? ' has-error' : ''}`}>
      <label htmlFor={props.id}>{props.label}</label>
      {props.children(aria)}
      {mine && (
        <p className="field-error" id={`${props.id}-err`} role="alert">
          {(props.error as Error).message}
        </p>
      )}
    </div>
  );
}

export function BoardFilters(props: {
  filters: Filters;
  onChange: (f: Filters) => void;
  isDispatch: boolean;
  error: unknown;
  /** The user's zone: "Today" is today there. */
  tz: string;
}) {
  const { filters: f, onChange, error, tz } = props;
  const set = (patch: Partial<Filters>) => onChange({ ...f, ...patch });
  return (
    <form className="filters" aria-label="Filter orders" onSubmit={(e) => e.preventDefault()}>
      <Ctl id="f-status" label="Status" error={error}>
        {(aria) => (
          <select
            id="f-status"
            value={f.status}
            onChange={(e) => set({ status: e.target.value as OrderStatus })}
            {...aria}
          >
            <option value="">All</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABEL[s]}
              </option>
            ))}
          </select>
        )}
      </Ctl>
      <Ctl id="f-by" label="Date" error={error}>
        {(aria) => (
          <select id="f-by" value={f.by} onChange={(e) => set({ by: e.target.value as Filters['by'] })} {...aria}>
            <option value="due">Due (delivery day)</option>
            <option value="created">Created</option>
          </select>
        )}
      </Ctl>
      <Ctl id="f-day" label="Day" error={error}>
        {(aria) => (
          <span className="day-pick">
            <input id="f-day" type="date" value={f.day} onChange={(e) => set({ day: e.target.value })} {...aria} />
            {f.day !== today(tz) && (
              <button type="button" onClick={() => set({ day: today(tz) })} title={`Today in ${tz}`}>
                Today
              </button>
            )}
            {f.day !== '' && (
              <button type="button" onClick={() => set({ day: '' })}>
                All days
              </button>
            )}
            <small className="muted">{tz}</small>
          </span>
        )}
      </Ctl>
      {props.isDispatch && (
        <Ctl id="f-account" label="Account" error={error}>
          {(aria) => (
            <AccountPicker id="f-account" value={f.account} onChange={(account) => set({ account })} aria={aria} />
          )}
        </Ctl>
      )}
      <Ctl id="f-search" label="Search" error={error}>
        {(aria) => (
          <input
            id="f-search"
            type="search"
            value={f.search}
            maxLength={100}
            placeholder="Order id, tracking code, external id, name, phone"
            title="The order id, tracking code or external id exactly; the start of the customer's name; the last 4 or more digits of the phone"
            onChange={(e) => set({ search: e.target.value })}
            {...aria}
          />
        )}
      </Ctl>
    </form>
  );
}

/** Counts per status from GET /v1/orders/counts; a count is a button that filters by its status. */
export function BoardCounts(props: {
  counts: { total: number; counts: Record<string, number> } | null;
  status: OrderStatus | '';
  onStatus: (s: OrderStatus | '') => void;
}) {
  const c = props.counts;
  return (
    <ul className="counts" aria-label="Orders per status">
      <li>
        <button type="button" className="badge" aria-pressed={props.status === ''} onClick={() => props.onStatus('')}>
          All <b data-count="total">{c ? c.total : '…'}</b>
        </button>
      </li>
      {c &&
        STATUSES.filter((s) => c.counts[s]).map((s) => (
          <li key={s}>
            <button
              type="button"
              className={`badge s-${s}`}
              aria-pressed={props.status === s}
              onClick={() => props.onStatus(props.status === s ? '' : s)}
            >
              {STATUS_LABEL[s]} <b data-count={s}>{c.counts[s]}</b>
            </button>
          </li>
        ))}
    </ul>
  );
}
