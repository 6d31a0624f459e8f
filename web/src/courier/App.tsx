import { useCallback, useEffect, useRef, useState } from 'react';
import { type Action, allowedMoves, COURIER_MOVES, TRANSITIONS } from '../../../src/features/lifecycle/transitions.js';
import type { Order } from '../shared/api';
import { ACTION_LABEL, newIdempotencyKey } from '../shared/api';
import type { RouteOrder } from './client';
import { mergeDone } from './done';
import { useCash } from './hooks/useCash';
import { useCourierSession } from './hooks/useCourierSession';
import { useDutyLocation } from './hooks/useDutyLocation';
import { useOfflineQueue } from './hooks/useOfflineQueue';
import { useRefusals } from './hooks/useRefusals';
import { useRouteLive } from './hooks/useRouteLive';
import { useRouteStops } from './hooks/useRouteStops';
import type { Entry, MoveEntry } from './queue';
import { CashCard } from './screens/CashCard';
import { DeliverSheet } from './screens/DeliverSheet';
import { FailSheet } from './screens/FailSheet';
import { RouteList, stopNumbers, withQueued } from './screens/RouteList';
import { ScanSheet } from './screens/ScanSheet';
import { SignIn } from './screens/SignIn';
import { TopBar } from './screens/TopBar';
import { saveDuty, savedDuty } from './storage';

interface Sheet {
  order: Order;
  action: 'deliver' | 'fail';
}

/** A scanned label's stop: its number on the route (the label's) and the status the phone shows for it. */
function scannedStop(stops: RouteOrder[], queued: Entry[], code: string) {
  const o = stops.find((s) => s.tracking_code === code);
  if (!o) return undefined;
  const last = queued.filter((q) => q.kind === 'move' && q.orderId === o.id).pop();
  return { order: o, number: stopNumbers(stops).get(o.id), status: last?.kind === 'move' ? last.to : o.status };
}

/** The courier app: sign-in, then today's route with its sheets; state lives in the hooks. */
export function App() {
  const session = useCourierSession();
  const { me } = session;
  const route = useRouteStops(session);
  const cash = useCash(session);
  // A synced move may be a cash delivery: the route and the cash are read again together.
  const { refresh: routeRefresh } = route;
  const { refresh: cashRefresh } = cash;
  const reload = useCallback(async () => {
    await routeRefresh();
    await cashRefresh();
  }, [routeRefresh, cashRefresh]);
  const outbox = useOfflineQueue(session, { moved: route.moved, sent: reload });
  const [onDuty, setOnDuty] = useState(savedDuty);
  // What the last action did ("Deliver saved", which offline promises a sync), or a quiet word.
  const [note, setNote] = useState({ text: '', saved: false });
  const quiet = useCallback((text: string) => setNote({ text, saved: false }), []);
  const [sheet, setSheet] = useState<Sheet | null>(null);
  const [scanning, setScanning] = useState(false);
  const locationProblem = useDutyLocation(session, onDuty);
  // A move made on another phone changes the cash too: reload reads it with the route.
  useRouteLive(me?.courier.id, reload, undefined, quiet);
  const refused = useRefusals(outbox.failed, route.stops, route.done, outbox.size, {
    dismiss: outbox.dismiss,
    note: quiet,
  });
  useFocusBack(sheet);

  // On start: confirm the session when online (it may have been revoked), then load the route.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per signed-in courier
  useEffect(() => {
    if (!me) return;
    void (async () => {
      if (!(await session.confirm())) return;
      await reload();
      await outbox.sync();
    })();
  }, [me?.courier.id]);

  /** Each move carries its stop's customer: a refusal names the stop even once it is off the list. */
  const named = (entries: Entry[]): Entry[] =>
    entries.map((e) =>
      e.kind === 'move' ? { ...e, customer: route.stops.find((s) => s.id === e.orderId)?.customer.name } : e,
    );

  async function queue(entries: Entry[]) {
    const moves = entries.filter((e): e is MoveEntry => e.kind === 'move');
    await outbox.queue(named(entries));
    const first = moves[0];
    if (!first) return quiet('');
    const label = first.steps ? 'Start route' : ACTION_LABEL[first.action as Action];
    setNote({ text: moves.length > 1 ? `${label}: ${moves.length} stops saved` : `${label} saved`, saved: true });
  }

  /**
   * Start route: every stop still to load is picked up and departs in one tap, one outbox entry per
   * order (its two moves sent in order, each exactly once); stops already on the way are left alone.
   */
  function startRoute() {
    const now = Date.now();
    const entries: MoveEntry[] = withQueued(route.stops, outbox.queued)
      .filter((o) => ['assigned', 'ready_for_pickup', 'picked_up'].includes(o.status))
      .map((o) => ({
        kind: 'move',
        orderId: o.id,
        action: 'depart',
        steps: o.status === 'picked_up' ? ['depart'] : ['pickup', 'depart'],
        body: {},
        idempotencyKey: newIdempotencyKey(),
        queuedAt: now,
        to: TRANSITIONS.depart.to,
      }));
    if (entries.length) void queue(entries);
  }

  function onAction(o: Order, a: Action) {
    if (a === 'deliver' || a === 'fail') return setSheet({ order: o, action: a });
    void queue([
      {
        kind: 'move',
        orderId: o.id,
        action: a,
        body: {},
        idempotencyKey: newIdempotencyKey(),
        queuedAt: Date.now(),
        to: TRANSITIONS[a].to,
      },
    ]);
  }

  /**
   * A label read by the camera (docs/labels.md): a parcel of this route is loaded, and picked up
   * when the transition table still allows it; both are queued like any move (offline too).
   */
  function onScan(code: string | null, text: string): string {
    if (!code) return `Not a Ruta label: ${text.slice(0, 40)}`;
    const stop = scannedStop(route.stops, outbox.queued, code);
    if (!stop) return `Not on your route: ${code}`;
    const { order, number, status } = stop;
    const move = (action: string, to: string): Entry => ({
      kind: 'move',
      orderId: order.id,
      action,
      body: {},
      idempotencyKey: newIdempotencyKey(),
      queuedAt: Date.now(),
      to,
    });
    const entries = [move('load', status)];
    const pickup = allowedMoves(status as Order['status'], COURIER_MOVES).includes('pickup');
    if (pickup) entries.push(move('pickup', TRANSITIONS.pickup.to));
    void outbox.queue(named(entries));
    return `Stop ${number} loaded${pickup ? ' and picked up' : ''}: ${code}`;
  }

  async function signOut() {
    const n = outbox.size;
    if (n > 0 && !confirm(`${n} action(s) have not synced yet and would be lost. Sign out anyway?`)) return;
    await session.signOut();
  }

  if (!me) return <SignIn onSignIn={session.signIn} />;

  const close = () => setSheet(null);
  return (
    <div className="c-app">
      <TopBar
        name={me.courier.name}
        online={outbox.online}
        onDuty={onDuty}
        onDutyChange={(on) => {
          setOnDuty(on);
          saveDuty(on);
        }}
        onSignOut={() => void signOut()}
        waiting={outbox.size}
        onSync={() => void outbox.sync()}
        failed={refused}
        onDismiss={outbox.dismiss}
        note={
          note.text &&
          `${note.text}${note.saved && outbox.size > 0 && !outbox.online ? ' — will sync when online' : ''}.`
        }
        locationProblem={locationProblem}
      />
      <main>
        {sheet?.action === 'deliver' && <DeliverSheet order={sheet.order} onQueue={queue} onClose={close} />}
        {sheet?.action === 'fail' && <FailSheet order={sheet.order} onQueue={queue} onClose={close} />}
        {scanning && <ScanSheet onCode={onScan} onClose={() => setScanning(false)} />}
        {!sheet && !scanning && (
          <RouteList
            onScan={() => setScanning(true)}
            stops={route.stops}
            queued={outbox.queued}
            done={mergeDone(route.done, route.stops, outbox.queued)}
            onStart={startRoute}
            onAction={onAction}
            onRefresh={() => void reload()}
          />
        )}
        {!sheet && <CashCard cash={cash.cash} fresh={cash.fresh} />}
      </main>
    </div>
  );
}

/**
 * The sheet replaces the list, so the button that opened it is gone: when it closes, the focus goes
 * back to that stop's same button (or to the route's heading if the stop has moved on).
 */
function useFocusBack(sheet: Sheet | null): void {
  const lastSheet = useRef<Sheet | null>(null);
  useEffect(() => {
    const was = lastSheet.current;
    lastSheet.current = sheet;
    if (sheet || !was) return;
    const buttons = document.querySelectorAll<HTMLButtonElement>(`li[data-order="${was.order.id}"] button`);
    const back = [...buttons].find((b) => b.textContent === ACTION_LABEL[was.action]);
    (back ?? document.querySelector<HTMLElement>('#route-title'))?.focus();
  }, [sheet]);
}
