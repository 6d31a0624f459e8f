import { type FormEvent, useState } from 'react';
import { browserZone, type Schemas, unwrap, whenIn } from '../../shared/api';
import { plural } from '../../shared/text';
import { AccountField, useAccounts } from '../AccountPicker';
import { useSession } from '../session';
import { ErrorNote, TableHead, useLoad } from '../ui';

/** One page each: what someone must look at now, newest first. */
const LIMIT = 100;

type FailedDelivery = Schemas['WebhookDeliveryDetail'];
type Endpoint = Schemas['WebhookEndpoint'];

const REASONS: Record<string, string> = {
  http_410: 'the endpoint answered 410 Gone',
  failing_72h: 'no success in 72 h of failures',
  manual: 'disabled by the merchant',
};

/** "2 attempts · HTTP 500": the last error says the status when there was one (connect, tls, timeout otherwise). */
function outcome(d: FailedDelivery): string {
  const last = d.last_error ?? (d.last_status_code ? `HTTP ${d.last_status_code}` : 'failed');
  return `${plural(d.attempts, 'attempt')} · ${last}`;
}

function Count({ n, more }: { n: number | undefined; more: boolean | undefined }) {
  if (n === undefined) return null;
  return <span className="muted"> ({more ? `${LIMIT}+` : n})</span>;
}

/**
 * DESIGN §8 "Exceptions": webhook deliveries that failed for good and endpoints that were disabled,
 * across every account of the environment (GET /v1/webhook_deliveries?status=failed and
 * GET /v1/webhook_endpoints?status=disabled, read-only for the carrier). Redelivering and enabling
 * stay with each merchant, who owns the endpoint.
 */
export function WebhookExceptions() {
  const { client, mode, me } = useSession();
  // Times in the user's zone (the carrier's, else the browser's), named.
  const tz = me?.timezone ?? browserZone();
  const accounts = useAccounts();
  const accountName = accounts.nameOf;
  const [draft, setDraft] = useState('');
  const [account, setAccount] = useState('');
  const filter = account ? { account } : {};
  const deliveries = useLoad(
    () =>
      unwrap(
        client.GET('/v1/webhook_deliveries', { params: { query: { status: 'failed', limit: LIMIT, ...filter } } }),
      ),
    [mode, account],
  );
  const endpoints = useLoad(
    () =>
      unwrap(
        client.GET('/v1/webhook_endpoints', { params: { query: { status: 'disabled', limit: LIMIT, ...filter } } }),
      ),
    [mode, account],
  );
  const failed = deliveries.data?.data ?? [];
  const disabled = endpoints.data?.data ?? [];

  function apply(e: FormEvent) {
    e.preventDefault();
    setAccount(draft.trim());
  }

  return (
    <>
      <form className="filters" aria-label="Filter webhook exceptions" onSubmit={apply}>
        <div className="ctl">
          <label htmlFor="exc-account">Webhooks of one account</label>
          <AccountField id="exc-account" value={draft} onChange={setDraft} accounts={accounts} />
        </div>
        <button type="submit" style={{ alignSelf: 'end' }}>
          Filter
        </button>
      </form>
      <section aria-labelledby="exc-deliveries" className="exceptions-group">
        <h2 id="exc-deliveries">
          Failed webhook deliveries
          <Count n={deliveries.data ? failed.length : undefined} more={deliveries.data?.has_more} />
        </h2>
        <p className="muted">
          Events whose every attempt failed (or whose endpoint answered 410). The merchant can redeliver them from its
          Webhooks page once its receiver works.
        </p>
        <ErrorNote error={deliveries.error} />
        {deliveries.data && failed.length === 0 ? (
          <p className="empty-note">No failed deliveries.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" aria-label="Failed webhook deliveries">
              <TableHead columns={['Event', 'Account', 'Endpoint', 'Outcome', 'Failed']} />
              <tbody>
                {failed.map((d) => (
                  <tr key={d.id} data-delivery={d.id}>
                    <td>
                      {d.event_type}
                      <br />
                      <small className="muted">
                        {d.order ? <a href={`#/orders/${d.order}`}>{d.order}</a> : d.event}
                      </small>
                    </td>
                    <td title={d.account}>{accountName(d.account)}</td>
                    <td>{d.endpoint_url}</td>
                    <td>{outcome(d)}</td>
                    <td>{whenIn(d.completed_at, tz)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="exc-endpoints" className="exceptions-group">
        <h2 id="exc-endpoints">
          Disabled webhook endpoints
          <Count n={endpoints.data ? disabled.length : undefined} more={endpoints.data?.has_more} />
        </h2>
        <p className="muted">
          Endpoints that receive nothing until their merchant enables them again; their events are still recorded.
        </p>
        <ErrorNote error={endpoints.error} />
        {endpoints.data && disabled.length === 0 ? (
          <p className="empty-note">No disabled endpoints.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" aria-label="Disabled webhook endpoints">
              <TableHead columns={['Endpoint', 'Account', 'Reason', 'Disabled']} />
              <tbody>
                {disabled.map((e: Endpoint) => (
                  <tr key={e.id} data-endpoint={e.id}>
                    <td>
                      {e.url}
                      <br />
                      <small className="muted">{e.id}</small>
                    </td>
                    <td title={e.account}>{accountName(e.account)}</td>
                    <td>{e.disabled_reason ? (REASONS[e.disabled_reason] ?? e.disabled_reason) : '—'}</td>
                    <td>{whenIn(e.disabled_at, tz)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
