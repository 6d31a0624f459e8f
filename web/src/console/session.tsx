import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from 'react';
import { type Credentials, type Mode, makeClient, rawJson } from '../shared/api';

export type Role = 'admin' | 'dispatcher' | 'merchant';

export interface Me {
  name: string;
  email: string | null;
  role: Role;
  account: string | null;
  /** 'session' when signed in with a password; 'key' when an API key is used in this tab. */
  via: 'session' | 'key';
}

interface SessionBody {
  user?: { name?: string; email?: string; role?: Role; account?: string | null };
  csrf_token?: string;
}

const KEY_STORAGE = 'ruta.console.key';
const MODE_STORAGE = 'ruta.console.mode';

function meFromKey(key: string): Me {
  const operator = key.startsWith('ok_');
  return {
    name: operator ? 'Operator key' : 'Secret key',
    email: null,
    role: operator ? 'dispatcher' : 'merchant',
    account: null,
    via: 'key',
  };
}

export function modeOfKey(key: string): Mode {
  return /_live_/.test(key) ? 'live' : 'test';
}

function meFromSession(body: SessionBody): Me | null {
  const u = body.user;
  if (!u?.role) return null;
  return {
    name: u.name ?? u.email ?? 'Signed in',
    email: u.email ?? null,
    role: u.role,
    account: u.account ?? null,
    via: 'session',
  };
}

export function useSessionState() {
  const storedKey = sessionStorage.getItem(KEY_STORAGE);
  const [me, setMe] = useState<Me | null>(storedKey ? meFromKey(storedKey) : null);
  const [checked, setChecked] = useState(storedKey !== null);
  const creds = useRef<Credentials>({
    csrf: null,
    key: storedKey,
    mode: storedKey ? modeOfKey(storedKey) : ((localStorage.getItem(MODE_STORAGE) as Mode | null) ?? 'test'),
  });
  const [mode, setModeState] = useState<Mode>(creds.current.mode);
  const client = useMemo(
    () =>
      makeClient(
        () => creds.current,
        () => {
          if (creds.current.key) sessionStorage.removeItem(KEY_STORAGE);
          creds.current = { csrf: null, key: null, mode: creds.current.mode };
          setMe(null);
        },
      ),
    [],
  );

  /** Asks the server who is signed in (the cookie survives reloads; the CSRF token does not). */
  const check = useCallback(async () => {
    if (creds.current.key) return;
    try {
      const body = await rawJson<SessionBody>(creds.current, 'GET', '/v1/session');
      creds.current.csrf = body.csrf_token ?? null;
      setMe(meFromSession(body));
    } catch {
      setMe(null);
    } finally {
      setChecked(true);
    }
  }, []);

  const signIn = useCallback(async (email: string, password: string) => {
    const body = await rawJson<SessionBody>(creds.current, 'POST', '/v1/session', { email, password });
    creds.current.csrf = body.csrf_token ?? null;
    setMe(meFromSession(body) ?? { name: email, email, role: 'dispatcher', account: null, via: 'session' });
  }, []);

  const signInWithKey = useCallback(async (key: string) => {
    const probe: Credentials = { csrf: null, key, mode: modeOfKey(key) };
    // Any read the key may do proves it; orders are readable by secret and operator keys alike.
    await rawJson(probe, 'GET', '/v1/orders?limit=1');
    sessionStorage.setItem(KEY_STORAGE, key);
    creds.current = probe;
    setModeState(probe.mode);
    setMe(meFromKey(key));
  }, []);

  const signOut = useCallback(async () => {
    if (creds.current.key) {
      sessionStorage.removeItem(KEY_STORAGE);
      creds.current = { csrf: null, key: null, mode: creds.current.mode };
    } else {
      try {
        await rawJson(creds.current, 'DELETE', '/v1/session');
      } catch {}
      creds.current.csrf = null;
    }
    setMe(null);
  }, []);

  const setMode = useCallback((m: Mode) => {
    // A key is bound to one environment; only sessions switch.
    if (creds.current.key) return;
    creds.current.mode = m;
    localStorage.setItem(MODE_STORAGE, m);
    setModeState(m);
  }, []);

  return { me, checked, check, signIn, signInWithKey, signOut, mode, setMode, client, creds: () => creds.current };
}

export type Session = ReturnType<typeof useSessionState>;

const Ctx = createContext<Session | null>(null);

export function SessionProvider({ value, children }: { value: Session; children: ReactNode }) {
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useSession(): Session {
  const s = useContext(Ctx);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}
