import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from 'react';
import { browserZone, type Credentials, type Mode, makeClient, type Schemas, unwrap } from '../shared/api';

export type Role = Schemas['UserRole'];

export interface Me {
  name: string;
  email: string | null;
  role: Role;
  account: string | null;
  /** 'session' when signed in with a password; 'key' when an API key is used in this tab. */
  via: 'session' | 'key';
  /** The zone of the user's days (the board's "today"): the session's, or this browser's with a key. */
  timezone: string;
}

const KEY_STORAGE = 'ruta.console.key';
const MODE_STORAGE = 'ruta.console.mode';
/**
 * Set while this browser holds a session the console signed in. Without it there is no cookie to
 * ask about, and GET /v1/session could only answer 401 (DESIGN §1: no credentials is 401), which
 * every browser logs as a failed request: a first visit shows the sign-in form without asking.
 */
const SIGNED_IN_STORAGE = 'ruta.console.signedIn';
const signedIn = (yes: boolean) =>
  yes ? localStorage.setItem(SIGNED_IN_STORAGE, '1') : localStorage.removeItem(SIGNED_IN_STORAGE);

function meFromKey(key: string): Me {
  const operator = key.startsWith('ok_');
  return {
    name: operator ? 'Operator key' : 'Secret key',
    email: null,
    role: operator ? 'dispatcher' : 'merchant',
    account: null,
    via: 'key',
    timezone: browserZone(),
  };
}

export function modeOfKey(key: string): Mode {
  return /_live_/.test(key) ? 'live' : 'test';
}

function meFromSession(body: Schemas['Session']): Me {
  const u = body.user;
  return { name: u.name, email: u.email, role: u.role, account: u.account, via: 'session', timezone: body.timezone };
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
          else signedIn(false);
          creds.current = { csrf: null, key: null, mode: creds.current.mode };
          setMe(null);
        },
      ),
    [],
  );

  /**
   * Asks the server who is signed in (the cookie survives reloads; the CSRF token does not), when
   * this browser signed in before, or always with `ask` (a page that has just set the cookie).
   */
  const check = useCallback(
    async (ask = false) => {
      if (creds.current.key) return;
      if (!ask && localStorage.getItem(SIGNED_IN_STORAGE) === null) {
        setMe(null);
        setChecked(true);
        return;
      }
      try {
        const body = await unwrap(client.GET('/v1/session'));
        creds.current.csrf = body.csrf_token;
        signedIn(true);
        setMe(meFromSession(body));
      } catch {
        signedIn(false);
        setMe(null);
      } finally {
        setChecked(true);
      }
    },
    [client],
  );

  const signIn = useCallback(
    async (email: string, password: string) => {
      const body = await unwrap(client.POST('/v1/session', { body: { email, password } }));
      creds.current.csrf = body.csrf_token;
      signedIn(true);
      setMe(meFromSession(body));
    },
    [client],
  );

  const signInWithKey = useCallback(async (key: string) => {
    const probe: Credentials = { csrf: null, key, mode: modeOfKey(key) };
    // Any read the key may do proves it; orders are readable by secret and operator keys alike.
    // Its own client: the tab's credentials change only once the key is proven.
    await unwrap(makeClient(() => probe).GET('/v1/orders', { params: { query: { limit: 1 } } }));
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
        await unwrap(client.DELETE('/v1/session'));
      } catch {}
      signedIn(false);
      creds.current.csrf = null;
    }
    setMe(null);
  }, [client]);

  const setMode = useCallback((m: Mode) => {
    // A key is bound to one environment; only sessions switch.
    if (creds.current.key) return;
    creds.current.mode = m;
    localStorage.setItem(MODE_STORAGE, m);
    setModeState(m);
  }, []);

  return { me, checked, check, signIn, signInWithKey, signOut, mode, setMode, client };
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
