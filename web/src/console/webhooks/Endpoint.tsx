import { useRef, useState } from 'react';
import { browserZone, newIdempotencyKey, type Schemas, unwrap, whenIn } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote, Secret, TableHead, useGuard, useLoad } from '../ui';
import { EndpointEvents } from './EndpointEvents';

type Attempt = Schemas['WebhookAttempt'];
/** The attempt log's page: the API's largest. */
const PAGE = 100;

/** What an attempt came to: its answer, and for a failure, whether its delivery tries again, when, or gave up. */
function AttemptResult({ a, tz }: { a: Attempt; tz: string }) {
  const answer = `${a.succeeded ? 'ok' : 'failed'} ${a.response_status ?? a.error_class ?? ''} · ${a.duration_ms} ms`;
  return (
    <>
      {answer}
      {a.gave_up ? (
        <p className="gave-up">
          <strong>Gave up — no more retries</strong>
          {a.response_status === 410 ? ' (410 Gone disables the endpoint)' : ''}
        </p>
      ) : a.next_attempt_at ? (
        <p className="next-retry">Next retry at {whenIn(a.next_attempt_at, tz)}</p>
      ) : !a.succeeded ? (
        <p className="muted">Retried</p>
      ) : null}
      {a.response_body ? <pre className="body">{a.response_body}</pre> : null}
    </>
  );
}

/** One endpoint's page: its actions, the events it receives, and its attempt log. */
export function Endpoint({ id }: { id: string }) {
  const { client, me } = useSession();
  // Times in the user's zone (the merchant's account's, else the browser's), named.
  const tz = me?.timezone ?? browserZone();
  const ep = useLoad(() => unwrap(client.GET('/v1/webhook_endpoints/{id}', { params: { path: { id } } })), [id]);
  // The log in pages of PAGE, newest first; "Show older" reads the next with the API's cursor. A
  // reload after an action reads as many as are shown, so the older pages stay without a gap.
  const shown = useRef({ id, n: PAGE });
  if (shown.current.id !== id) shown.current = { id, n: PAGE };
  const attempts = useLoad(async () => {
    const rows: Attempt[] = [];
    let hasMore = false;
    do {
      const after = rows.at(-1)?.id;
      const page = await unwrap(
        client.GET('/v1/webhook_endpoints/{id}/deliveries', {
          params: { path: { id }, query: { limit: PAGE, ...(after ? { starting_after: after } : {}) } },
        }),
      );
      rows.push(...page.data);
      hasMore = page.has_more;
    } while (hasMore && rows.length < shown.current.n);
    return { rows, hasMore };
  }, [id]);
  const [note, setNote] = useState('');
  const [rotated, setRotated] = useState('');
  const [error, setError] = useState<unknown>(null);
  // One action at a time (a ref: two clicks in one task send one request, so a double click on
  // Rotate secret rotates once), each with an Idempotency-Key of its own: one key per render was
  // shared by every button, so a second, different action before a re-render was refused as a reuse.
  const guard = useGuard();
  const { busy, run } = guard;

  function older() {
    void run('older', async () => {
      const log = attempts.data;
      const last = log?.rows.at(-1);
      if (!log || !last) return;
      setError(null);
      try {
        const page = await unwrap(
          client.GET('/v1/webhook_endpoints/{id}/deliveries', {
            params: { path: { id }, query: { limit: PAGE, starting_after: last.id } },
          }),
        );
        const rows = [...log.rows, ...page.data];
        shown.current = { id, n: rows.length };
        attempts.setData({ rows, hasMore: page.has_more });
      } catch (e) {
        setError(e);
      }
    });
  }

  function act(label: string, fn: (key: { 'Idempotency-Key': string }) => Promise<unknown>) {
    void run(label, async () => {
      setError(null);
      try {
        const r = await fn({ 'Idempotency-Key': newIdempotencyKey() });
        const secret = (r as { secret?: string } | null)?.secret;
        setNote(secret ? `${label}. New secret, shown once: store it now.` : `${label}.`);
        setRotated(secret ?? '');
        await Promise.all([ep.reload(), attempts.reload()]);
      } catch (e) {
        setError(e);
      }
    });
  }

  const e = ep.data;
  if (!e) return <ErrorNote error={ep.error} />;
  return (
    <article aria-labelledby="ep-title">
      <p>
        <a href="#/webhooks">← Webhook endpoints</a>
      </p>
      <h1 id="ep-title" className="endpoint-title">
        {e.url}
      </h1>
      <p className="muted">
        {e.id} · {e.status}
        {e.status === 'disabled' && e.disabled_reason ? ` (${e.disabled_reason.replace(/_/g, ' ')})` : ''} ·{' '}
        {e.events.join(', ')}
      </p>
      <div className="buttons">
        <button
          type="button"
          disabled={busy !== null}
          onClick={() =>
            act('Test event sent', (key) =>
              unwrap(client.POST('/v1/webhook_endpoints/{id}/test', { params: { path: { id } }, headers: key })),
            )
          }
        >
          Send a test event
        </button>
        <button
          type="button"
          disabled={busy !== null}
          onClick={() =>
            act('Secret rotated', (key) =>
              unwrap(
                client.POST('/v1/webhook_endpoints/{id}/rotate_secret', { params: { path: { id } }, headers: key }),
              ),
            )
          }
        >
          Rotate secret
        </button>
        <button
          type="button"
          disabled={busy !== null}
          onClick={() =>
            act(e.status === 'enabled' ? 'Disabled' : 'Enabled', () =>
              unwrap(
                client.PATCH('/v1/webhook_endpoints/{id}', {
                  params: { path: { id } },
                  body: { status: e.status === 'enabled' ? 'disabled' : 'enabled' },
                }),
              ),
            )
          }
        >
          {e.status === 'enabled' ? 'Disable' : 'Enable'}
        </button>
      </div>
      {note && (
        <p className="note" role="status">
          {note}
        </p>
      )}
      {rotated && (
        <p className="shown-once">
          <Secret value={rotated} label="signing secret" />
        </p>
      )}
      <ErrorNote error={error} />
      <EndpointEvents id={id} events={e.events} onSaved={ep.reload} guard={guard} />
      <h2 id="ep-log">Attempt log</h2>
      <ErrorNote error={attempts.error} />
      <div className="table-wrap">
        <table className="table attempt-log" aria-labelledby="ep-log">
          <TableHead columns={['Event', 'Order', 'Attempt', 'Started', 'Result']} actions />
          <tbody>
            {(attempts.data?.rows ?? []).map((a) => (
              <tr key={a.id} className={a.gave_up ? 'gave-up' : undefined}>
                <td>
                  <strong>{a.event_type}</strong>
                  <br />
                  <span className="muted">{a.event}</span>
                </td>
                <td>{a.order ? <a href={`#/orders/${a.order}`}>{a.order}</a> : '—'}</td>
                <td>{a.attempt}</td>
                <td>{whenIn(a.started_at, tz)}</td>
                <td>
                  <AttemptResult a={a} tz={tz} />
                </td>
                <td>
                  <button
                    type="button"
                    disabled={busy !== null}
                    onClick={() =>
                      act('Redelivery queued', (key) =>
                        unwrap(
                          client.POST('/v1/events/{id}/redeliver', {
                            params: { path: { id: a.event } },
                            body: { endpoint: id },
                            headers: key,
                          }),
                        ),
                      )
                    }
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {attempts.data?.rows.length === 0 && <p className="muted">No attempt yet.</p>}
      {attempts.data?.hasMore && (
        <p>
          <button type="button" disabled={busy !== null} onClick={older}>
            Show older
          </button>
        </p>
      )}
    </article>
  );
}
