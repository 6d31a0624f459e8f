import { type FormEvent, useState } from 'react';
import { localDay } from '../../../../src/shared/local-time.js';
import { browserZone, money, type Schemas, unwrap } from '../../shared/api';
import { shownDecimals } from '../../shared/currency';
import { plural } from '../../shared/text';
import { saveBlob } from '../imports/files';
import { useSession } from '../session';
import { ErrorNote, TableHead, useGuard, useLoad, useRequestKey } from '../ui';
import { Bars, Distribution } from './charts';
import { DayHandovers } from './DayHandovers';
import { Settlements } from './Settlements';

type Figures = Schemas['ReportFigures'];

/**
 * DESIGN §17 in the console: the day's cash per courier (with a handover form) and its handovers
 * (DayHandovers.tsx), settlements (Settlements.tsx) and the KPI report drawn as bar charts
 * (charts.tsx, visx).
 */
export default function Money() {
  const { me } = useSession();
  const carrier = me?.role !== 'merchant';
  return (
    <section aria-labelledby="money-title" className="money">
      <h1 id="money-title">Money</h1>
      {carrier && <CashDay />}
      <Settlements carrier={carrier} />
      <Reports carrier={carrier} />
    </section>
  );
}

type CashLine = Schemas['CashEndOfDay']['lines'][number];

/**
 * Before today's first handover the courier simply holds the cash: "to hand over", not a shortfall.
 * Once something was handed over, or the day is over, a difference is an exception (as
 * GET /v1/cash/exceptions counts it).
 */
const waiting = (l: CashLine, today: boolean) => today && l.status === 'short' && l.handed_over === 0;

function differenceText(l: CashLine, today: boolean): string {
  if (l.status === 'balanced') return 'balanced';
  const amount = money(Math.abs(l.difference), l.currency);
  return waiting(l, today) ? `to hand over ${amount}` : `${l.status} ${amount}`;
}

/**
 * The end of day of one local day (GET /v1/cash/end_of_day?day=), today by default, in the user's
 * zone (the carrier's, which the API reads days in): each courier's line with a handover form (for
 * the day shown, or another day up to today), the day's handovers (a wrong one voided with a
 * reason) and the table as CSV.
 */
function CashDay() {
  const { client, mode, me } = useSession();
  const tz = me?.timezone ?? browserZone();
  const today = localDay(Date.now(), tz);
  const [day, setDay] = useState(today);
  const eod = useLoad(() => unwrap(client.GET('/v1/cash/end_of_day', { params: { query: { day } } })), [mode, day]);
  const [error, setError] = useState<unknown>(null);
  // One action at a time, handovers and voids alike: a double-click sent a handover twice.
  const guard = useGuard();
  const { busy, run } = guard;
  const requestKey = useRequestKey();
  const handover = (e: FormEvent<HTMLFormElement>, courier: string, currency: string) => {
    e.preventDefault();
    const el = e.currentTarget;
    const form = new FormData(el);
    const typed = String(form.get('amount') ?? '').trim();
    // A peso is shown without decimals ("$15.000" in es-CL): "15.000" typed as the screen writes it
    // is fifteen thousand, which the number field reads as 15, a handover short by 14 985 pesos.
    // Refused rather than guessed, as the courier app refuses it (courier/amount.ts).
    if (shownDecimals(currency) === 0 && /[.,]\d{3}$/.test(typed)) {
      setError(new Error(`Type the ${currency} amount without a thousands separator: ${typed.replace(/[.,]/g, '')}.`));
      return;
    }
    const body = {
      amount: Number(typed),
      currency,
      received_by: String(form.get('received_by')),
      // The day it counts for: the day shown unless changed (yesterday's cash found today counts for yesterday).
      day: String(form.get('day')),
    };
    // One handover at a time (a double-click sent it twice), with one key per handover asked for until
    // it is recorded, so a retry after a lost answer is one handover too.
    return run(`${courier}-${currency}`, async () => {
      setError(null);
      try {
        await unwrap(
          client.POST('/v1/couriers/{id}/cash_handovers', {
            params: { path: { id: courier } },
            body,
            headers: { 'Idempotency-Key': requestKey.keyFor({ courier, ...body }) },
          }),
        );
        requestKey.done();
        // Recorded: the fields empty again, so that the same cash is not entered twice.
        el.reset();
        await eod.reload();
      } catch (err) {
        setError(err);
      }
    });
  };
  // Fetched by the client, not a plain link: a link sends neither Ruta-Mode nor a console's API key.
  const download = () =>
    run('csv', async () => {
      setError(null);
      try {
        const blob = await unwrap(
          client.GET('/v1/cash/end_of_day/export', { params: { query: { day, format: 'csv' } }, parseAs: 'blob' }),
        );
        saveBlob(blob as Blob, `ruta-cash-${mode}-${day}.csv`);
      } catch (err) {
        setError(err);
      }
    });
  const isToday = day === today;
  const lines = eod.data?.lines ?? [];
  const handovers = eod.data?.handovers ?? [];
  return (
    <section aria-labelledby="cash-title">
      <h2 id="cash-title">Courier cash {eod.data ? `· ${eod.data.day} (${eod.data.timezone})` : ''}</h2>
      <p className="filters">
        <label>
          Day{' '}
          <input
            type="date"
            value={day}
            max={today}
            required
            onChange={(e) => e.target.value && setDay(e.target.value)}
          />
        </label>{' '}
        <small className="muted">{tz}</small>{' '}
        {!isToday && (
          <button type="button" onClick={() => setDay(today)}>
            Today
          </button>
        )}{' '}
        <button type="button" onClick={() => void download()} disabled={busy === 'csv' || lines.length === 0}>
          CSV
        </button>
      </p>
      <ErrorNote error={eod.error ?? error} />
      {eod.data && lines.length === 0 && (
        <p className="empty-note">No cash collected or held {isToday ? 'today' : `on ${day}`}.</p>
      )}
      {lines.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-label="Courier cash">
            <TableHead columns={['Courier', 'Expected', 'Collected', 'Handed over', 'Difference', 'Holds']} actions />
            <tbody>
              {lines.map((l) => (
                <tr key={`${l.courier.id}-${l.currency}`}>
                  <td>{l.courier.name}</td>
                  <td className="amount">{money(l.expected, l.currency)}</td>
                  <td className="amount">{money(l.collected, l.currency)}</td>
                  <td className="amount">{money(l.handed_over, l.currency)}</td>
                  <td className={l.status === 'balanced' || waiting(l, isToday) ? '' : 'error-note'}>
                    {differenceText(l, isToday)}
                  </td>
                  <td className="amount">{money(l.balance, l.currency)}</td>
                  <td>
                    <form
                      onSubmit={(e) => handover(e, l.courier.id, l.currency)}
                      aria-label={`Handover of ${l.courier.name}`}
                    >
                      <input
                        name="amount"
                        type="number"
                        step="0.01"
                        min="0.01"
                        required
                        placeholder="Amount"
                        aria-label="Amount"
                      />
                      <input name="received_by" required placeholder="Received by" aria-label="Received by" />
                      {/* The day the cash counts for, in the zone named beside it: the day shown by default. */}
                      <input
                        name="day"
                        type="date"
                        defaultValue={day}
                        max={today}
                        required
                        aria-label={`Counts for (${tz})`}
                      />{' '}
                      <small className="muted">{tz}</small>{' '}
                      <button type="submit" disabled={busy === `${l.courier.id}-${l.currency}`}>
                        Record handover
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {handovers.length > 0 && (
        <DayHandovers day={day} tz={tz} handovers={handovers} guard={guard} onError={setError} reload={eod.reload} />
      )}
    </section>
  );
}

// Each chart: its figure per group, the orders behind a group's bar, and the top of its scale
// when the figure has one (a rate: 1, a rating: 5 stars; otherwise the largest bar).
const CHARTS: [string, string, (f: Figures) => number | null, (f: Figures) => string, number?][] = [
  ['orders', 'Volume', (f) => f.orders, (f) => f.links.orders],
  ['on_time_rate', 'On-time rate', (f) => f.on_time_rate, (f) => f.links.orders, 1],
  ['first_attempt_rate', 'First-attempt success', (f) => f.first_attempt_rate, (f) => f.links.orders, 1],
  ['delivery_minutes', 'Delivery time p50 (min)', (f) => f.delivery_minutes.p50, (f) => f.links.orders],
  ['ratings', 'Average rating', (f) => f.ratings.average, (f) => f.links.rated, 5],
];

/** `carrier`: the carrier's people may group by merchant; a merchant sees its own orders only. */
function Reports({ carrier }: { carrier: boolean }) {
  const { client, mode } = useSession();
  const [groupBy, setGroupBy] = useState<'day' | 'courier' | 'district' | 'merchant'>('day');
  const report = useLoad(
    () => unwrap(client.GET('/v1/reports/summary', { params: { query: { group_by: groupBy } } })),
    [mode, groupBy],
  );
  const [failed, setFailed] = useState<unknown>(null);
  // Fetched by the client, not a plain link: a link sends neither the Ruta-Mode header (a Live
  // report would come from test data) nor the API key of a console signed in with one.
  const download = async (format: 'csv' | 'xlsx') => {
    setFailed(null);
    try {
      const blob = await unwrap(
        client.GET('/v1/reports/summary/export', { params: { query: { format, group_by: groupBy } }, parseAs: 'blob' }),
      );
      saveBlob(blob as Blob, `ruta-report-${mode}-by-${groupBy}.${format}`);
    } catch (err) {
      setFailed(err);
    }
  };
  const r = report.data;
  // A figure's link is a GET /v1/orders query: its page runs it as it is (FigureOrders.tsx).
  const toOrders = (href: string) => `#/money/orders?${href.split('?')[1] ?? ''}`;
  return (
    <section aria-labelledby="reports-title" className="reports">
      <h2 id="reports-title">Reports</h2>
      <label>
        By{' '}
        <select value={groupBy} onChange={(e) => setGroupBy(e.target.value as typeof groupBy)}>
          <option value="day">day</option>
          <option value="courier">courier</option>
          <option value="district">district</option>
          {carrier && <option value="merchant">merchant</option>}
        </select>
      </label>{' '}
      <button type="button" onClick={() => void download('csv')}>
        CSV
      </button>{' '}
      <button type="button" onClick={() => void download('xlsx')}>
        XLSX
      </button>
      <ErrorNote error={report.error ?? failed} />
      {r && (
        <>
          <p>
            {r.from} – {r.to} ({r.timezone}): <a href={toOrders(r.totals.links.orders)}>{r.totals.orders} orders</a>,{' '}
            <a href={toOrders(r.totals.links.delivered)}>{r.totals.delivered} delivered</a>,{' '}
            <a href={toOrders(r.totals.links.failed)}>{r.totals.failed} failed</a>,{' '}
            <a href={toOrders(r.totals.links.cancelled)}>{r.totals.cancelled} cancelled</a>, on time{' '}
            <a href={toOrders(r.totals.links.on_time)}>{pct(r.totals.on_time_rate)}</a>, first attempt{' '}
            <a href={toOrders(r.totals.links.first_attempt)}>{pct(r.totals.first_attempt_rate)}</a>, delivery time p50{' '}
            {r.totals.delivery_minutes.p50 ?? '—'} min, p90 {r.totals.delivery_minutes.p90 ?? '—'} min. Rated{' '}
            <Stars average={r.totals.ratings.average} /> by{' '}
            <a href={toOrders(r.totals.links.rated)}>{plural(r.totals.ratings.count, 'customer')}</a>.
          </p>
          <div className="charts">
            {CHARTS.map(([key, title, value, href, scale]) => (
              <Bars
                key={key}
                title={title}
                scale={scale}
                format={scale === 1 ? pct : undefined}
                groups={r.groups.map((g) => ({ label: g.label, value: value(g), href: toOrders(href(g)) }))}
                byName={groupBy !== 'day'}
              />
            ))}
            <Distribution distribution={r.totals.ratings.distribution} rated={toOrders(r.totals.links.rated)} />
          </div>
        </>
      )}
    </section>
  );
}

/** The average as five stars, filled for each whole star it reaches (4.5: four), and the number. */
function Stars({ average }: { average: number | null }) {
  if (average === null) return <span>—</span>;
  const full = Math.floor(average);
  return (
    <span className="stars" role="img" aria-label={`${average} out of 5 stars`}>
      <span aria-hidden="true">{'★'.repeat(full) + '☆'.repeat(5 - full)}</span> {average}
    </span>
  );
}

const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 1000) / 10} %`);
