import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiFailure, unwrap } from '../../shared/api';
import { plural } from '../../shared/text';
import { useSession } from '../session';
import { ResetPassword } from './ResetPassword';

function retryText(after: string | null): string {
  const s = Number(after);
  if (!after || !Number.isFinite(s)) return 'Too many attempts. Wait a few minutes and try again.';
  const min = Math.ceil(s / 60);
  return `Too many attempts. Try again in ${plural(min, 'minute')}.`;
}

/** The page an invitation link opens (/console/#invitation=TOKEN): the person sets a password. */
function AcceptInvitation({ token }: { token: string }) {
  const session = useSession();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [email, setEmail] = useState('');
  const [error, setError] = useState('');
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per invitation token
  useEffect(() => {
    unwrap(session.client.GET('/v1/invitations/{token}', { params: { path: { token } } }))
      .then((inv) => setEmail(inv.email))
      .catch(() => setError('This invitation link is not valid any more. Ask for a new one.'));
  }, [token]);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError('');
    try {
      await unwrap(
        session.client.POST('/v1/invitations/{token}/accept', {
          params: { path: { token } },
          body: { name, password },
        }),
      );
      history.replaceState(null, '', '/console/');
      await session.signIn(email, password);
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Could not set the password.');
    }
  }
  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="inv-title">
        <h1 id="inv-title">Join Ruta</h1>
        {email && <p className="muted">Invitation for {email}</p>}
        <div className="field">
          <label htmlFor="inv-name">Your name</label>
          <input id="inv-name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="name" required />
        </div>
        <div className="field">
          <label htmlFor="inv-password">Choose a password (at least 10 characters)</label>
          <input
            id="inv-password"
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
        <button type="submit" className="primary">
          Set password and sign in
        </button>
      </form>
    </main>
  );
}

export function SignIn() {
  const invitation = /^#invitation=([^&]+)/.exec(location.hash)?.[1];
  if (invitation) return <AcceptInvitation token={decodeURIComponent(invitation)} />;
  const reset = /^#password_reset=([^&]+)/.exec(location.hash)?.[1];
  if (reset) return <ResetPassword token={decodeURIComponent(reset)} />;
  return <PasswordSignIn />;
}

function PasswordSignIn() {
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [key, setKey] = useState('');
  const [useKey, setUseKey] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      if (useKey) await session.signInWithKey(key.trim());
      else await session.signIn(email.trim(), password);
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 429) setError(retryText(err.retryAfter));
      else if (err instanceof ApiFailure && err.status === 401)
        setError(useKey ? 'That API key is not valid.' : 'Wrong email or password.');
      else if (err instanceof ApiFailure && err.status === 404 && !useKey)
        setError('This server has no password sign-in yet. Use an API key instead.');
      else setError(err instanceof Error ? err.message : 'Could not sign in.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="signin-title" noValidate>
        <h1 id="signin-title" tabIndex={-1} ref={heading}>
          Sign in to Ruta
        </h1>
        {useKey ? (
          <div className="field">
            <label htmlFor="key">API key (ok_… or sk_…)</label>
            <input
              id="key"
              name="key"
              type="password"
              autoComplete="off"
              value={key}
              onChange={(e) => setKey(e.target.value)}
              required
            />
          </div>
        ) : (
          <>
            <div className="field">
              <label htmlFor="email">Email</label>
              <input
                id="email"
                name="email"
                type="email"
                autoComplete="username"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                required
              />
            </div>
            <div className="field">
              <label htmlFor="password">Password</label>
              <input
                id="password"
                name="password"
                type="password"
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                required
              />
            </div>
          </>
        )}
        {error && (
          <p className="error-note" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <button type="button" className="link" onClick={() => setUseKey(!useKey)}>
          {useKey ? 'Sign in with email and password' : 'Use an API key instead'}
        </button>
      </form>
    </main>
  );
}
