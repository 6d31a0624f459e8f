import { type FormEvent, useEffect, useState } from 'react';
import { unwrap } from '../../shared/api';
import { useSession } from '../session';

/**
 * The page an admin's reset link opens (/console/#password_reset=TOKEN): the user chooses a new
 * password. Completing it signs this browser in (the server sets the cookie), so the console only
 * asks who is signed in afterwards.
 */
export function ResetPassword({ token }: { token: string }) {
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const params = { path: { token } };
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per reset token
  useEffect(() => {
    unwrap(session.client.GET('/v1/password_resets/{token}', { params }))
      .then((r) => setEmail(r.email))
      .catch(() => setError('This password reset link is not valid any more. Ask an admin for a new one.'));
  }, [token]);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      await unwrap(session.client.POST('/v1/password_resets/{token}/complete', { params, body: { password } }));
      history.replaceState(null, '', '/console/');
      // The completed reset set the session cookie: ask, though this browser may never have signed in.
      await session.check(true);
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Could not set the password.');
    } finally {
      setBusy(false);
    }
  }
  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="reset-title">
        <h1 id="reset-title">Choose a new password</h1>
        {email && <p className="muted">For {email}</p>}
        <input type="hidden" name="username" autoComplete="username" value={email} readOnly />
        <div className="field">
          <label htmlFor="reset-password">New password (at least 10 characters)</label>
          <input
            id="reset-password"
            type="password"
            minLength={10}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoComplete="new-password"
            required
          />
        </div>
        {error && (
          <p className="error-note" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          Set password and sign in
        </button>
      </form>
    </main>
  );
}
