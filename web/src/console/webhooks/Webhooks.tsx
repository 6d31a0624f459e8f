import { type FormEvent, useState } from 'react';
import { unwrap } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote, Field, Secret, useGuard, useLoad, useRequestKey } from '../ui';
import { Endpoint } from './Endpoint';
import { fieldErrors } from './EndpointEvents';
import { EventPicker } from './EventPicker';
import './webhooks.css';

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
