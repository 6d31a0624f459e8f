import { type FormEvent, useEffect, useRef, useState } from 'react';
import { browserZone, newIdempotencyKey, unwrap, whenIn } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote, errorsOf, Field, Secret, TableHead, useGuard, useLoad } from '../ui';
import { EventPicker } from './EventPicker';
import './webhooks.css';

/** An API error on `events[3]` belongs to the events list as a whole (the picker shows it). */
function fieldErrors(err: unknown): Record<string, string> {
  return Object.fromEntries(Object.entries(errorsOf(err)).map(([k, v]) => [k.startsWith('events') ? 'events' : k, v]));
}

/** DESIGN §8: a merchant edits which events an endpoint receives (PATCH /v1/webhook_endpoints/{id}). */
function EndpointEvents({ id, events, onSaved }: { id: string; events: string[]; onSaved: () => Promise<unknown> }) {
  const { client } = useSession();
  const [draft, setDraft] = useState(events);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState('');
  const current = JSON.stringify(events);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the saved list changes
  useEffect(() => setDraft(events), [current]);

  async function save(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    setSaved('');
    try {
      await unwrap(client.PATCH('/v1/webhook_endpoints/{id}', { params: { path: { id } }, body: { events: draft } }));
      setSaved('Events saved.');
      await onSaved();
    } catch (err) {
      setErrors(fieldErrors(err));
    }
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
        <button type="submit" className="primary" disabled={JSON.stringify(draft) === current}>
          Save events
        </button>
        {saved && <span role="status">{saved}</span>}
      </div>
    </form>
  );
}

function Endpoint({ id }: { id: string }) {
  const { client, me } = useSession();
  // Times in the user's zone (the merchant's account's, else the browser's), named.
  const tz = me?.timezone ?? browserZone();
  const ep = useLoad(() => unwrap(client.GET('/v1/webhook_endpoints/{id}', { params: { path: { id } } })), [id]);
  const attempts = useLoad(
    () =>
      unwrap(client.GET('/v1/webhook_endpoints/{id}/deliveries', { params: { path: { id }, query: { limit: 100 } } })),
    [id],
  );
  const [note, setNote] = useState('');
  const [rotated, setRotated] = useState('');
  const [error, setError] = useState<unknown>(null);
  // One action at a time (a ref: two clicks in one task send one request, so a double click on
  // Rotate secret rotates once), each with an Idempotency-Key of its own: one key per render was
  // shared by every button, so a second, different action before a re-render was refused as a reuse.
  const { busy, run } = useGuard();

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
      <EndpointEvents id={id} events={e.events} onSaved={ep.reload} />
      <h2>Attempt log</h2>
      <table className="table">
        <TableHead columns={['Event', 'Attempt', 'Started', 'Result']} actions />
        <tbody>
          {(attempts.data?.data ?? []).map((a) => (
            <tr key={a.id}>
              <td>{a.event}</td>
              <td>{a.attempt}</td>
              <td>{whenIn(a.started_at, tz)}</td>
              <td>
                {a.succeeded ? 'ok' : 'failed'} {a.response_status ?? a.error_class ?? ''} · {a.duration_ms} ms
                {a.response_body ? <pre className="body">{a.response_body}</pre> : null}
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
  const asked = useRef<{ body: string; key: string } | null>(null);
  if (id) return <Endpoint id={id} />;

  function create(e: FormEvent) {
    e.preventDefault();
    void run('create', async () => {
      setErrors({});
      const body = { url, events };
      const json = JSON.stringify(body);
      if (asked.current?.body !== json) asked.current = { body: json, key: newIdempotencyKey() };
      try {
        const ep = await unwrap(
          client.POST('/v1/webhook_endpoints', { body, headers: { 'Idempotency-Key': asked.current.key } }),
        );
        asked.current = null;
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
