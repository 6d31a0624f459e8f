import { type FormEvent, useEffect, useRef, useState } from 'react';
import { browserZone, newIdempotencyKey, type Schemas, unwrap, whenIn } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote, errorsOf, Field, Secret, TableHead, useGuard, useLoad, useRequestKey } from '../ui';
import { EventPicker } from './EventPicker';
import './webhooks.css';

/** An API error on `events[3]` belongs to the events list as a whole (the picker shows it). */
function fieldErrors(err: unknown): Record<string, string> {
  return Object.fromEntries(Object.entries(errorsOf(err)).map(([k, v]) => [k.startsWith('events') ? 'events' : k, v]));
}

type Guard = ReturnType<typeof useGuard>;

/**
 * DESIGN §8: a merchant edits which events an endpoint receives (PATCH /v1/webhook_endpoints/{id}).
 * Saving is one of the page's actions (its guard): a double click sends one PATCH, and no other
 * button of the page runs meanwhile.
 */
function EndpointEvents({
  id,
  events,
  onSaved,
  guard,
}: {
  id: string;
  events: string[];
  onSaved: () => Promise<unknown>;
  guard: Guard;
}) {
  const { client } = useSession();
  const [draft, setDraft] = useState(events);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState('');
  const current = JSON.stringify(events);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the saved list changes
  useEffect(() => setDraft(events), [current]);

  function save(e: FormEvent) {
    e.preventDefault();
    void guard.run('save-events', async () => {
      setErrors({});
      setSaved('');
      try {
        await unwrap(client.PATCH('/v1/webhook_endpoints/{id}', { params: { path: { id } }, body: { events: draft } }));
        setSaved('Events saved.');
        await onSaved();
      } catch (err) {
        setErrors(fieldErrors(err));
      }
    });
  }

  return (
    <form className="endpoint-events" onSubmit={save} aria-labelledby="ep-events" noValidate>
      <h2 id="ep-events">Events</h2>
      <EventPicker legend="Events sent to this endpoint" value={draft} onChange={setDraft} error={errors.events} />
      {errors[''] && (
        <p className="error-note" role="alert">
          {errors['']}
        </p>
      )}
      <div className="buttons">
        <button type="submit" className="primary" disabled={guard.busy !== null || JSON.stringify(draft) === current}>
          Save events
        </button>
        {saved && <span role="status">{saved}</span>}
      </div>
    </form>
  );
}

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

function Endpoint({ id }: { id: string }) {
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

export default function Webhooks({ id }: { id?: string }) {
  const { client } = useSession();
  const list = useLoad(() => unwrap(client.GET('/v1/webhook_endpoints', { params: { query: { limit: 100 } } })), []);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['*']);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  // One creation at a time (a ref: two clicks in one task send one request), and one
  // Idempotency-Key per body until it succeeds: a key per click let a double click make two endpoints.
  const { busy, run } = useGuard();
  const requestKey = useRequestKey();
  if (id) return <Endpoint id={id} />;

  function create(e: FormEvent) {
    e.preventDefault();
    void run('create', async () => {
      setErrors({});
      const body = { url, events };
      try {
        const ep = await unwrap(
          client.POST('/v1/webhook_endpoints', { body, headers: { 'Idempotency-Key': requestKey.keyFor(body) } }),
        );
        requestKey.done();
        setSecret({ url: ep.url, secret: ep.secret ?? '' });
        setUrl('');
        await list.reload();
      } catch (err) {
        setErrors(fieldErrors(err));
      }
    });
  }

  return (
    <section aria-labelledby="wh-title">
      <h1 id="wh-title">Webhook endpoints</h1>
      <form className="inline-form" onSubmit={create} noValidate>
        <Field
          label="URL"
          name="url"
          type="url"
          value={url}
          onChange={setUrl}
          errors={errors}
          required
          placeholder="https://…"
        />
        <EventPicker legend="Events" value={events} onChange={setEvents} error={errors.events} />
        {errors[''] && (
          <p className="error-note" role="alert">
            {errors['']}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy !== null}>
          Add endpoint
        </button>
      </form>
      {secret && (
        <div className="note shown-once" role="status">
          <p>{secret.url}: signing secret, shown once: store it now.</p>
          <Secret value={secret.secret} label="signing secret" />
        </div>
      )}
      <ErrorNote error={list.error} />
      <ul className="cards">
        {(list.data?.data ?? []).map((e) => (
          <li key={e.id} className="card">
            <a href={`#/webhooks/${e.id}`}>{e.url}</a>
            <p className="muted">
              {e.status} · {e.events.join(', ')}
            </p>
          </li>
        ))}
      </ul>
      {list.data?.data.length === 0 && (
        <p className="muted">
          No endpoint yet. Add your server’s address: every status change of your orders is sent to it, signed with the
          secret shown once so that your server can tell it came from Ruta.
        </p>
      )}
    </section>
  );
}
