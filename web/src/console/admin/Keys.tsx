import { type FormEvent, useState } from 'react';
import { browserZone, type Schemas, unwrap, whenIn } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote, errorsOf, Field, Secret, TableHead, useGuard, useLoad, useRequestKey } from '../ui';
import { FormError, ShownOnce } from './shared';

type ApiKey = Schemas['ApiKey'];

// API keys: an admin's operator keys, a merchant user's account keys (the server decides which),
// and, under Accounts, an admin's view of one merchant account's keys (`account`).

export function Keys({ title }: { title: string }) {
  return (
    <section aria-labelledby="admin-title">
      <h1 id="admin-title">{title}</h1>
      <KeyManager label={title} />
    </section>
  );
}

/** Create (secret shown once), list, roll and revoke keys: the operator's or the caller's own, or `account`'s. */
export function KeyManager({ label, account }: { label: string; account?: string }) {
  const session = useSession();
  const { client } = session;
  const query = account ? { params: { query: { account } } } : {};
  const list = useLoad(() => unwrap(client.GET('/v1/api_keys', query)), [session.mode, account]);
  const [mode, setMode] = useState<ApiKey['mode']>(session.mode);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [shown, setShown] = useState<{ text: string; secret: string } | null>(null);
  // Times in the user's zone (the carrier's, a merchant's account's, else the browser's), named.
  const tz = session.me?.timezone ?? browserZone();
  // One action at a time (a ref: two clicks in one task send one request), and one Idempotency-Key
  // per key asked for: a double click or a retry after a lost answer creates one key, never a
  // second whose secret nobody saw (a replay of a key's answer is refused, the secret withheld).
  const { busy, run } = useGuard();
  const requestKey = useRequestKey();

  /** The API's error under its field; one about the request itself (its Idempotency-Key) under the form. */
  const formErrors = (err: unknown) =>
    Object.fromEntries(Object.entries(errorsOf(err)).map(([p, m]) => [p === 'mode' ? p : '', m]));

  function create(e: FormEvent) {
    e.preventDefault();
    void run('create', async () => {
      setErrors({});
      const body = { mode, ...(account ? { account } : {}) };
      try {
        const k = await unwrap(
          client.POST('/v1/api_keys', { body, headers: { 'Idempotency-Key': requestKey.keyFor(body) } }),
        );
        requestKey.done();
        setShown({ text: `New ${k.mode} key ${k.id}, shown once: store it now.`, secret: k.secret });
        await list.reload();
      } catch (err) {
        setErrors(formErrors(err));
      }
    });
  }

  function roll(k: ApiKey) {
    void run(k.id, async () => {
      setErrors({});
      try {
        const r = await unwrap(client.POST('/v1/api_keys/{id}/roll', { params: { path: { id: k.id } }, body: {} }));
        setShown({ text: 'New key, shown once (the old one works for 24 h more):', secret: r.secret });
        await list.reload();
      } catch (err) {
        setErrors(formErrors(err));
      }
    });
  }

  function revoke(k: ApiKey) {
    void run(k.id, async () => {
      if (!confirm(`Revoke ${k.display}? It stops working at once.`)) return;
      setErrors({});
      try {
        await unwrap(client.DELETE('/v1/api_keys/{id}', { params: { path: { id: k.id } } }));
        await list.reload();
      } catch (err) {
        setErrors(formErrors(err));
      }
    });
  }

  return (
    <>
      <form className="inline-form" onSubmit={create} noValidate aria-label={`New ${label.toLowerCase()}`}>
        <Field label="Key environment" name="mode" errors={errors}>
          <select aria-label="Key environment" value={mode} onChange={(e) => setMode(e.target.value as ApiKey['mode'])}>
            <option value="test">test</option>
            <option value="live">live</option>
          </select>
        </Field>
        <FormError errors={errors} />
        <button type="submit" className="primary" disabled={busy !== null}>
          Create key
        </button>
      </form>
      {shown && (
        <ShownOnce>
          <p>{shown.text}</p>
          <Secret value={shown.secret} label="secret key" />
        </ShownOnce>
      )}
      <ErrorNote error={list.error} />
      <div className="table-wrap">
        <table className="table" aria-label={label}>
          <TableHead columns={['Key', 'Environment', 'Created', 'Expires', 'Revoked']} actions />
          <tbody>
            {(list.data?.data ?? []).map((k) => (
              <tr key={k.id}>
                <td>
                  <code>{k.display}</code>
                  <br />
                  <small className="muted">{k.id}</small>
                </td>
                <td>{k.mode}</td>
                <td>{whenIn(k.created_at, tz)}</td>
                <td>{whenIn(k.expires_at, tz)}</td>
                <td>{whenIn(k.revoked_at, tz)}</td>
                <td className="buttons">
                  <button
                    type="button"
                    aria-label={`Roll ${k.display}`}
                    disabled={!!k.revoked_at}
                    onClick={() => roll(k)}
                  >
                    Roll
                  </button>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Revoke ${k.display}`}
                    disabled={!!k.revoked_at}
                    onClick={() => revoke(k)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
