import { lazy, type ReactNode, Suspense, useEffect, useRef } from 'react';
import { Boundary } from '../shared/Boundary';
import { SignIn } from './auth/SignIn';
import { Board } from './board/Board';
import { go, useRoute } from './router';
import { type Role, type Session, SessionProvider, useSession, useSessionState } from './session';

// Leaflet and the less used pages load on demand: the first screen is the board.
const MapPage = lazy(() => import('./map/MapPage'));
const OrderPage = lazy(() => import('./orders/OrderPage'));
const Couriers = lazy(() => import('./couriers/Couriers'));
const NewOrder = lazy(() => import('./orders/NewOrder'));
const Webhooks = lazy(() => import('./webhooks/Webhooks'));
const Admin = lazy(() => import('./admin/Admin'));
const Exceptions = lazy(() => import('./exceptions/Exceptions'));
const Money = lazy(() => import('./money/Money'));
const FigureOrders = lazy(() => import('./money/FigureOrders'));
const Planning = lazy(() => import('./planning/Planning'));
const RoutePage = lazy(() => import('./routes/RoutePage'));
const RoutesPage = lazy(() => import('./routes/RoutesPage'));
const Imports = lazy(() => import('./imports/Imports'));
const ChangePassword = lazy(() => import('./auth/ChangePassword'));
const Messages = lazy(() => import('./messages/Messages'));
const Proof = lazy(() => import('./proof/Proof'));

interface NavItem {
  path: string;
  label: string;
  roles: Role[];
}

const NAV: NavItem[] = [
  { path: 'board', label: 'Orders', roles: ['admin', 'dispatcher', 'merchant'] },
  { path: 'map', label: 'Live map', roles: ['admin', 'dispatcher'] },
  { path: 'routes', label: 'Routes', roles: ['admin', 'dispatcher'] },
  { path: 'couriers', label: 'Couriers', roles: ['admin', 'dispatcher'] },
  { path: 'exceptions', label: 'Exceptions', roles: ['admin', 'dispatcher'] },
  { path: 'planning', label: 'Planning', roles: ['admin', 'dispatcher'] },
  { path: 'money', label: 'Money', roles: ['admin', 'dispatcher', 'merchant'] },
  { path: 'new-order', label: 'New order', roles: ['merchant'] },
  { path: 'webhooks', label: 'Webhooks', roles: ['merchant'] },
  { path: 'imports', label: 'Imports', roles: ['admin', 'dispatcher', 'merchant'] },
  { path: 'messages', label: 'Messages', roles: ['admin', 'dispatcher', 'merchant'] },
  { path: 'proof', label: 'Proof', roles: ['admin', 'dispatcher', 'merchant'] },
  { path: 'keys', label: 'API keys', roles: ['merchant'] },
  { path: 'admin/users', label: 'Users', roles: ['admin'] },
  { path: 'admin/accounts', label: 'Accounts', roles: ['admin'] },
  { path: 'admin/operator-keys', label: 'Operator keys', roles: ['admin'] },
];

function Page({ parts }: { parts: string[] }): ReactNode {
  const [first, second] = parts;
  switch (first) {
    case 'board':
      return <Board />;
    case 'map':
      return <MapPage />;
    case 'orders':
      return second ? <OrderPage id={second} /> : <Board />;
    case 'couriers':
      return <Couriers />;
    case 'exceptions':
      return <Exceptions />;
    case 'money':
      return second === 'orders' ? <FigureOrders /> : <Money />;
    case 'planning':
      return <Planning id={second} />;
    case 'routes':
      return second ? <RoutePage id={second} /> : <RoutesPage />;
    case 'new-order':
      return <NewOrder />;
    case 'webhooks':
      return <Webhooks id={second} />;
    case 'imports':
      return <Imports id={second} />;
    case 'messages':
      return <Messages sub={second} />;
    case 'proof':
      return <Proof />;
    case 'keys':
      return <Admin section="keys" />;
    case 'admin':
      return <Admin section={second ?? 'users'} />;
    case 'account':
      return <ChangePassword />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>
            <a href="#/board">Back to the orders</a>
          </p>
        </section>
      );
  }
}

function Layout({ session }: { session: Session }) {
  const parts = useRoute();
  const me = session.me!;
  const main = useRef<HTMLElement>(null);
  const path = parts.join('/');
  // Moving focus to the page on navigation tells keyboard and screen-reader users where they are.
  // Not on the first screen: there the reader starts at the top, where Tab reaches the skip link and
  // the navigation first.
  const arrived = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each navigation
  useEffect(() => {
    if (arrived.current) main.current?.focus({ preventScroll: true });
    arrived.current = true;
  }, [path]);
  return (
    <div className={`shell mode-${session.mode}`}>
      <button type="button" className="skip" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <header className="topbar">
        <strong className="brand">Ruta</strong>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((n) => n.roles.includes(me.role)).map((n) => (
              <li key={n.path}>
                <a href={`#/${n.path}`} aria-current={path.startsWith(n.path) ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="tools">
          <fieldset className="mode" aria-label="Environment">
            <legend className="sr-only">Environment</legend>
            {(['test', 'live'] as const).map((m) => (
              <label key={m}>
                <input
                  type="radio"
                  name="mode"
                  value={m}
                  checked={session.mode === m}
                  disabled={me.via === 'key' && session.mode !== m}
                  onChange={() => session.setMode(m)}
                />
                {m === 'test' ? 'Test' : 'Live'}
              </label>
            ))}
          </fieldset>
          <span className="who" title={[me.name, me.email, me.role].filter(Boolean).join(' · ')}>
            {me.name} · {me.role}
          </span>
          {me.via === 'session' && (
            <a href="#/account/password" aria-current={path.startsWith('account') ? 'page' : undefined}>
              Change password
            </a>
          )}
          <button type="button" onClick={() => void session.signOut().then(() => go('board'))}>
            Sign out
          </button>
        </div>
      </header>
      {session.mode === 'test' && <div className="test-banner">Test data</div>}
      <main id="main" ref={main} tabIndex={-1}>
        <Boundary key={path} fallback={<PageFailed />}>
          <Suspense fallback={<p className="muted">Loading…</p>}>
            <Page key={`${session.mode}:${parts[0]}`} parts={parts} />
          </Suspense>
        </Boundary>
      </main>
    </div>
  );
}

/**
 * A page that failed to load or draw (most often its chunk did not arrive: the network dropped, or
 * Ruta was upgraded and the file it names is gone) says so; the navigation stays, and a reload
 * fetches the current version.
 */
function PageFailed() {
  return (
    <section role="alert">
      <h1>This page could not load</h1>
      <p>The network may have dropped, or Ruta was just upgraded. Nothing you saved is lost.</p>
      <button type="button" className="primary" onClick={() => window.location.reload()}>
        Reload
      </button>
    </section>
  );
}

export function App() {
  const session = useSessionState();
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, at start
  useEffect(() => {
    void session.check();
  }, []);
  return (
    <SessionProvider value={session}>
      {!session.checked ? (
        <p className="muted center">Loading…</p>
      ) : session.me ? (
        <Layout session={session} />
      ) : (
        <SignIn />
      )}
    </SessionProvider>
  );
}

export function useMe() {
  return useSession().me!;
}
