import { type FormEvent, useState } from 'react';
import { localDay } from '../../../../src/shared/local-time.js';
import { browserZone, money, type Schemas, unwrap, whenIn } from '../../shared/api';
import { plural } from '../../shared/text';
import { saveBlob } from '../imports/files';
import { useSession } from '../session';
import { ErrorNote, TableHead, useGuard, useLoad } from '../ui';

type Settlement = Schemas['Settlement'];

/**
 * What the carrier owes each merchant (DESIGN §17): the carrier drafts one for a merchant and a
 * period, opens its lines, issues it (final: the merchant gets `settlement.issued`), marks it paid;
 * a merchant reads its own. Exports go through the API client, so they are the session's environment.
 */
export function Settlements({ carrier }: { carrier: boolean }) {
  const { client, mode, me } = useSession();
  const list = useLoad(() => unwrap(client.GET('/v1/settlements', { params: { query: { limit: 50 } } })), [mode]);
  // The carrier's people (admins and dispatchers alike: GET /v1/accounts is theirs) pick the merchant
  // by name; a merchant sees only its own settlements and needs no list.
  const accounts = useLoad(
    () => (carrier ? unwrap(client.GET('/v1/accounts', {})) : Promise.resolve(null)),
    [mode, carrier],
  );
  const names = new Map((accounts.data?.data ?? []).map((a) => [a.id, a.name]));
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  // One action at a time: a double-click on Issue sent it twice, and the second's 409 was shown
  // as an error over a settlement that had been issued.
  const { busy, run } = useGuard();
  const act = (f: () => Promise<unknown>, key = 'list') =>
    run(key, async () => {
      setError(null);
      try {
        await f();
        await list.reload();
      } catch (err) {
        setError(err);
      }
    });
  const move = (s: Settlement, action: 'issue' | 'pay') => {
    // Issuing is final (it sends settlement.issued and fixes the lines); paying only records a fact.
    const who = names.get(s.account) ?? s.account;
    if (action === 'issue' && !confirm(`Issue this settlement to ${who}? An issued settlement cannot be changed.`))
      return;
    return act(
      () => unwrap(client.POST(`/v1/settlements/{id}/${action}`, { params: { path: { id: s.id } }, body: {} })),
      s.id,
    );
  };
  const remove = (s: Settlement) => {
    if (!confirm('Delete this draft settlement?')) return;
    return act(() => unwrap(client.DELETE('/v1/settlements/{id}', { params: { path: { id: s.id } } })), s.id);
  };
  const draft = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const body = {
      account_id: String(form.get('account') ?? '').trim(),
      period_start: String(form.get('from')),
      period_end: String(form.get('to')),
    };
    return act(async () => setOpen((await unwrap(client.POST('/v1/settlements', { body }))).id));
  };
  const download = (id: string, format: 'csv' | 'xlsx') =>
    act(async () => {
      const blob = await unwrap(
        client.GET('/v1/settlements/{id}/export', {
          params: { path: { id }, query: { format } },
          parseAs: 'blob',
        }),
      );
      saveBlob(blob as Blob, `ruta-${id}.${format}`);
    });

  const rows = list.data?.data ?? [];
  const shown = rows.find((s) => s.id === open);
  const today = localDay(Date.now(), me?.timezone ?? browserZone());
  return (
    <section aria-labelledby="settlements-title">
      <h2 id="settlements-title">Settlements</h2>
      {carrier && (
        <form className="inline-form" onSubmit={draft} aria-label="Draft a settlement">
          {accounts.data ? (
            <label>
              Merchant{' '}
              <select name="account" required defaultValue="">
                <option value="" disabled>
                  Choose…
                </option>
                {accounts.data.data.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <label>
              Account id <input name="account" required placeholder="acct_…" />
            </label>
          )}{' '}
          <label>
            From <input name="from" type="date" required defaultValue={`${today.slice(0, 8)}01`} />
          </label>{' '}
          <label>
            To <input name="to" type="date" required defaultValue={today} />
          </label>{' '}
          <button type="submit">Draft settlement</button>
        </form>
      )}
      <ErrorNote error={list.error ?? error} />
      {list.data && rows.length === 0 && <p className="empty-note">No settlements yet.</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-label="Settlements">
            {/* A merchant reads its own settlements only: no Merchant column (it held the bare account id). */}
            <TableHead
              columns={[...(carrier ? ['Merchant'] : []), 'Period', 'Status', 'Lines', 'Net payable']}
              actions
            />
            <tbody>
              {rows.map((s) => (
                <tr key={s.id} aria-selected={s.id === open}>
                  {carrier && <td>{names.get(s.account) ?? s.account}</td>}
                  <td>
                    {s.period_start} – {s.period_end}
                  </td>
                  <td>{s.status}</td>
                  <td>{s.lines.length}</td>
                  <td>{s.totals.map((t) => money(t.net_payable, t.currency)).join(' · ')}</td>
                  <td className="actions">
                    <button type="button" onClick={() => setOpen(s.id === open ? null : s.id)}>
                      {s.id === open ? 'Hide lines' : 'Lines'}
                    </button>
                    {carrier && s.status === 'draft' && (
                      <>
                        <button type="button" onClick={() => move(s, 'issue')} disabled={busy === s.id}>
                          Issue
                        </button>
                        <button type="button" onClick={() => remove(s)} disabled={busy === s.id}>
                          Delete draft
                        </button>
                      </>
                    )}
                    {carrier && s.status === 'issued' && (
                      <button type="button" onClick={() => move(s, 'pay')} disabled={busy === s.id}>
                        Mark paid
                      </button>
                    )}
                    <button type="button" onClick={() => download(s.id, 'csv')}>
                      CSV
                    </button>
                    <button type="button" onClick={() => download(s.id, 'xlsx')}>
                      XLSX
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shown && <Lines s={shown} name={carrier ? (names.get(shown.account) ?? shown.account) : null} />}
    </section>
  );
}

/** `name`: the merchant's, for the carrier; null for the merchant itself. */
function Lines({ s, name }: { s: Settlement; name: string | null }) {
  // Every time in the settlement's own zone, named: the one its period's days are read in, and its
  // exports' times (settlements.ts), so the page and the file agree whoever reads them.
  const when = (iso: string | null | undefined) => whenIn(iso, s.timezone);
  const title = `Lines${name ? ` of ${name}` : ''}, ${s.period_start} – ${s.period_end}`;
  return (
    <div className="table-wrap">
      <h3>{title}</h3>
      <p className="muted">
        {s.status}
        {s.issued_at ? ` · issued ${when(s.issued_at)}` : ''}
        {s.paid_at ? ` · paid ${when(s.paid_at)}` : ''}
      </p>
      <table className="table" aria-label={title}>
        <TableHead columns={['Order', 'Kind', 'Status', 'Delivered', 'COD collected', 'Shipping', 'Net payable']} />
        <tbody>
          {s.lines.map((l) => (
            <tr key={`${l.kind}-${l.order}`}>
              <td>
                <a href={`#/orders/${l.order}`}>{l.tracking_code}</a>
                {l.external_order_id ? <small className="muted"> · {l.external_order_id}</small> : null}
              </td>
              <td>{l.kind}</td>
              <td>{l.order_status.replace(/_/g, ' ')}</td>
              <td>{when(l.delivered_at)}</td>
              <td>{money(l.cod_collected, l.currency)}</td>
              <td>{money(l.shipping_cost, l.currency)}</td>
              <td>{money(l.net_payable, l.currency)}</td>
            </tr>
          ))}
          {s.totals.map((t) => (
            <tr key={t.currency} className="total">
              <th scope="row" colSpan={4}>
                {`Total ${t.currency} (${plural(t.lines, 'line')}`}
                {t.adjustments ? `, adjustments ${money(t.adjustments, t.currency)}` : ''})
              </th>
              <td>{money(t.cod_collected, t.currency)}</td>
              <td>{money(t.shipping_costs, t.currency)}</td>
              <td>
                <strong>{money(t.net_payable, t.currency)}</strong>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
