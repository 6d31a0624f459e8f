import { type FormEvent, useState } from 'react';
import { ApiFailure } from '../../shared/api';

/** The sign-in code from the dispatcher, typed or taken from the link's #code=. */
export function SignIn({ onSignIn }: { onSignIn: (code: string) => Promise<void> }) {
  const fromLink = new URLSearchParams(location.hash.slice(1)).get('code') ?? '';
  const [code, setCode] = useState(fromLink);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await onSignIn(code.trim().toUpperCase());
      history.replaceState(null, '', '/courier/');
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 429) setError('Too many tries. Wait a little and try again.');
      else if (err instanceof ApiFailure)
        setError('That code is not valid or has expired. Ask your dispatcher for a new one.');
      else setError('No connection. Signing in needs the network once.');
    } finally {
      setBusy(false);
    }
  }
  return (
    <main className="c-signin">
      <form onSubmit={submit}>
        <h1>Ruta courier</h1>
        <label htmlFor="code">Sign-in code from your dispatcher</label>
        <input
          id="code"
          name="code"
          autoComplete="one-time-code"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={12}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          required
        />
        {error && (
          <p className="error-note" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary big" disabled={busy || code.trim().length < 4}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
