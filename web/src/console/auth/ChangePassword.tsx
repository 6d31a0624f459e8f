import { type FormEvent, useState } from 'react';
import { unwrap } from '../../shared/api';
import { plural } from '../../shared/text';
import { useSession } from '../session';
import { errorsOf, Field } from '../ui';

/**
 * The signed-in user's own password (POST /v1/session/password). The server checks the current one
 * and ends the user's other sessions; this one goes on, so the page stays.
 */
export default function ChangePassword() {
  const { client, me } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    setDone(null);
    if (next !== repeat) {
      setErrors({ repeat: 'The two new passwords differ.' });
      return;
    }
    setBusy(true);
    try {
      const res = await unwrap(
        client.POST('/v1/session/password', { body: { current_password: current, new_password: next } }),
      );
      const n = res.sessions_ended;
      setDone(
        `Password changed. ${n === 0 ? 'You had no other sessions.' : `${plural(n, 'other session')} signed out.`}`,
      );
      setCurrent('');
      setNext('');
      setRepeat('');
    } catch (err) {
      setErrors(errorsOf(err));
    } finally {
      setBusy(false);
    }
  }

  if (me?.via !== 'session') {
    return (
      <section aria-labelledby="password-title">
        <h1 id="password-title">Change password</h1>
        <p className="muted">This tab uses an API key; sign in with your email and password to change it.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="password-title">
      <h1 id="password-title">Change password</h1>
      <p className="muted">Your other sessions (other browsers and devices) are signed out; this one stays.</p>
      <form className="stack-form" onSubmit={submit} noValidate aria-label="Change password">
        <input type="hidden" name="username" autoComplete="username" value={me.email ?? ''} readOnly />
        <Field
          label="Current password"
          name="current_password"
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={setCurrent}
          errors={errors}
          required
        />
        <Field
          label="New password (at least 10 characters)"
          name="new_password"
          type="password"
          autoComplete="new-password"
          value={next}
          onChange={setNext}
          errors={errors}
          required
        />
        <Field
          label="Repeat the new password"
          name="repeat"
          type="password"
          autoComplete="new-password"
          value={repeat}
          onChange={setRepeat}
          errors={errors}
          required
        />
        {errors[''] && (
          <p className="error-note" role="alert">
            {errors['']}
          </p>
        )}
        {done && (
          <p className="note" role="status">
            {done}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </section>
  );
}
