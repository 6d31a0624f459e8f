import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';
import { ApiFailure, money, type Order } from '../shared/api';
import {
  ACTION_LABEL,
  type Action,
  allowedMoves,
  COURIER_ACTIONS,
  FAILURE_REASONS,
  TRANSITIONS,
} from '../shared/transitions';
import { downscale } from './images';
import { lastPosition, useDutyLocation } from './location';
import { api, type CourierMe, isActive, loadStops, savedMe, savedStops, saveMe, saveStops, sender } from './net';
import { clearFailure, type Entry, enqueue, type Failure, failures, flush, type MoveEntry, pending } from './queue';
import { type SignatureHandle, SignaturePad } from './SignaturePad';

const uuid = () => crypto.randomUUID();

/**
 * A form that takes the place of the route (deliver, failed attempt): the focus moves into it when it
 * opens, so a keyboard or screen-reader user starts at its heading, and Escape goes back like Back.
 */
function useSheet(onClose: () => void) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onClose();
    }
  };
  return { heading, onKeyDown };
}

function SignIn({ onSignedIn }: { onSignedIn: (me: CourierMe) => void }) {
  const fromLink = new URLSearchParams(location.hash.slice(1)).get('code') ?? '';
  const [code, setCode] = useState(fromLink);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const me = await api<CourierMe>(null, 'POST', '/v1/courier_session', { code: code.trim().toUpperCase() });
      history.replaceState(null, '', '/courier/');
      onSignedIn(me);
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

function firstName(name: string): string {
  return name.trim().split(/\s+/)[0] ?? name;
}

function navLink(o: Order): string {
  const a = o.delivery_address;
  const dest =
    typeof a.lat === 'number' && typeof a.lng === 'number'
      ? `${a.lat},${a.lng}`
      : [a.address, a.district, a.city].filter(Boolean).join(', ');
  return `https://www.google.com/maps/dir/?api=1&destination=${encodeURIComponent(dest)}`;
}

interface Sheet {
  order: Order;
  action: 'deliver' | 'fail';
}

function DeliverSheet({
  order,
  onQueue,
  onClose,
}: {
  order: Order;
  onQueue: (e: Entry[]) => Promise<void>;
  onClose: () => void;
}) {
  const sig = useRef<SignatureHandle>(null);
  const sheet = useSheet(onClose);
  const [photos, setPhotos] = useState<Blob[]>([]);
  const [form, setForm] = useState<Record<string, string>>({
    receiver_name: order.customer.name,
    relationship: 'self',
    payment_method: 'cash',
    collected_amount: order.cash_on_delivery ? String(order.cash_on_delivery) : '',
  });
  const [error, setError] = useState('');
  const cod = (order.cash_on_delivery ?? 0) > 0;
  const set = (k: string) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });

  async function addPhotos(files: FileList | null) {
    if (!files) return;
    const scaled = await Promise.all([...files].map((f) => downscale(f)));
    setPhotos([...photos, ...scaled]);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError('');
    const signature = await sig.current?.png();
    if (order.requires_signature && !signature) return setError('This delivery needs a signature.');
    if (order.requires_photo && photos.length === 0) return setError('This delivery needs a photo.');
    if (!form.receiver_name?.trim()) return setError('Enter who received the parcel.');
    const entries: Entry[] = [];
    const body: Record<string, unknown> = { receiver_name: form.receiver_name.trim(), relationship: form.relationship };
    if (form.receiver_document?.trim()) body.receiver_document = form.receiver_document.trim();
    if (signature) {
      const localId = uuid();
      entries.push({
        kind: 'file',
        localId,
        purpose: 'signature',
        blob: signature,
        idempotencyKey: uuid(),
        orderId: order.id,
        queuedAt: Date.now(),
      });
      body.signature_file = { $file: localId };
    }
    if (photos.length) {
      body.photo_files = photos.map((blob) => {
        const localId = uuid();
        entries.push({
          kind: 'file',
          localId,
          purpose: 'photo',
          blob,
          idempotencyKey: uuid(),
          orderId: order.id,
          queuedAt: Date.now(),
        });
        return { $file: localId };
      });
    }
    if (cod) {
      body.collected_amount = Number(form.collected_amount);
      body.payment_method = form.payment_method;
    }
    if (lastPosition.current) {
      body.lat = lastPosition.current.lat;
      body.lng = lastPosition.current.lng;
    }
    entries.push({
      kind: 'move',
      orderId: order.id,
      action: 'deliver',
      body,
      idempotencyKey: uuid(),
      queuedAt: Date.now(),
      to: 'delivered',
    });
    await onQueue(entries);
    onClose();
  }

  return (
    <form
      className="sheet"
      onSubmit={submit}
      onKeyDown={sheet.onKeyDown}
      aria-label={`Deliver to ${firstName(order.customer.name)}`}
    >
      <h2 ref={sheet.heading} tabIndex={-1}>
        Deliver · {order.tracking_code}
      </h2>
      <label>
        Received by
        <input name="receiver_name" value={form.receiver_name ?? ''} onChange={set('receiver_name')} required />
      </label>
      <label>
        Document number
        <input name="receiver_document" value={form.receiver_document ?? ''} onChange={set('receiver_document')} />
      </label>
      <label>
        Relationship
        <select name="relationship" value={form.relationship} onChange={set('relationship')}>
          {['self', 'family', 'neighbor', 'doorman', 'coworker', 'other'].map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </label>
      <div>
        <span className="label">Signature{order.requires_signature ? ' (required)' : ''}</span>
        <SignaturePad ref={sig} label="Signature area: sign with your finger" />
        <button type="button" onClick={() => sig.current?.clear()}>
          Clear signature
        </button>
      </div>
      <label>
        Photos{order.requires_photo ? ' (required)' : ''}
        <input
          name="photos"
          type="file"
          accept="image/*"
          capture="environment"
          multiple
          onChange={(e) => void addPhotos(e.target.files)}
        />
      </label>
      {photos.length > 0 && <p className="muted">{photos.length} photo(s) ready</p>}
      {cod && (
        <fieldset>
          <legend>Cash on delivery: {money(order.cash_on_delivery, order.currency)}</legend>
          <label>
            Collected
            <input
              name="collected_amount"
              inputMode="decimal"
              value={form.collected_amount ?? ''}
              onChange={set('collected_amount')}
              required
            />
          </label>
          <label>
            Method
            <select name="payment_method" value={form.payment_method} onChange={set('payment_method')}>
              {['cash', 'card', 'bank_transfer', 'mobile_wallet'].map((m) => (
                <option key={m} value={m}>
                  {m.replace('_', ' ')}
                </option>
              ))}
            </select>
          </label>
        </fieldset>
      )}
      {error && (
        <p className="error-note" role="alert">
          {error}
        </p>
      )}
      <div className="buttons">
        <button type="button" onClick={onClose}>
          Back
        </button>
        <button type="submit" className="primary big">
          Confirm delivery
        </button>
      </div>
    </form>
  );
}

function FailSheet({
  order,
  onQueue,
  onClose,
}: {
  order: Order;
  onQueue: (e: Entry[]) => Promise<void>;
  onClose: () => void;
}) {
  const sheet = useSheet(onClose);
  const [reason, setReason] = useState<string>('customer_absent');
  const [notes, setNotes] = useState('');
  async function submit(e: FormEvent) {
    e.preventDefault();
    await onQueue([
      {
        kind: 'move',
        orderId: order.id,
        action: 'fail',
        body: { reason, ...(notes.trim() ? { notes: notes.trim() } : {}) },
        idempotencyKey: uuid(),
        queuedAt: Date.now(),
        to: 'failed',
      },
    ]);
    onClose();
  }
  return (
    <form className="sheet" onSubmit={submit} onKeyDown={sheet.onKeyDown} aria-label="Failed attempt">
      <h2 ref={sheet.heading} tabIndex={-1}>
        Could not deliver · {order.tracking_code}
      </h2>
      <label>
        Reason
        <select name="reason" value={reason} onChange={(e) => setReason(e.target.value)}>
          {FAILURE_REASONS.map((r) => (
            <option key={r} value={r}>
              {r.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </label>
      <label>
        Notes
        <textarea name="notes" value={notes} onChange={(e) => setNotes(e.target.value)} />
      </label>
      <div className="buttons">
        <button type="button" onClick={onClose}>
          Back
        </button>
        <button type="submit" className="danger big">
          Record failed attempt
        </button>
      </div>
    </form>
  );
}

function Stop({ order, index, onAction }: { order: Order; index: number; onAction: (o: Order, a: Action) => void }) {
  const a = order.delivery_address;
  const active = isActive(order.status);
  const moves = allowedMoves(order.status, COURIER_ACTIONS);
  return (
    <li
      className={`stop${active ? ' active' : ''}`}
      data-order={order.id}
      aria-label={`Stop ${index + 1}: ${firstName(order.customer.name)}`}
    >
      <div className="stop-head">
        <span className="num" aria-hidden="true">
          {index + 1}
        </span>
        <div>
          <h2>{firstName(order.customer.name)}</h2>
          <p className="status">
            <span className={`badge s-${order.status}`}>{order.status.replace(/_/g, ' ')}</span>
          </p>
        </div>
      </div>
      <p className="addr">
        {a.address}
        {a.district ? `, ${a.district}` : ''}
      </p>
      {a.reference && <p className="muted">Ref: {a.reference}</p>}
      {(a as { access_notes?: string }).access_notes && (
        <p className="muted">Access: {(a as { access_notes?: string }).access_notes}</p>
      )}
      <p className="facts">
        {order.time_window ? `${order.time_window.start}–${order.time_window.end} · ` : ''}
        {order.packages} pkg
        {(order.cash_on_delivery ?? 0) > 0 ? ` · COD ${money(order.cash_on_delivery, order.currency)}` : ''}
      </p>
      <div className="buttons">
        <a className="btn" href={navLink(order)} target="_blank" rel="noreferrer">
          Navigate
        </a>
        {active && order.customer.phone && (
          <a className="btn" href={`tel:${order.customer.phone}`}>
            Call
          </a>
        )}
        {moves.map((m) => (
          <button
            key={m}
            type="button"
            className={m === 'deliver' ? 'primary' : m === 'fail' ? 'danger' : ''}
            onClick={() => onAction(order, m)}
          >
            {ACTION_LABEL[m]}
          </button>
        ))}
      </div>
    </li>
  );
}

export function App() {
  const [me, setMe] = useState<CourierMe | null>(savedMe);
  const meRef = useRef(me);
  meRef.current = me;
  const [stops, setStops] = useState<Order[]>(savedStops);
  // The route is kept for offline use whenever it changes (not inside a state updater, which React
  // may call twice).
  useEffect(() => saveStops(stops), [stops]);
  const [queued, setQueued] = useState<MoveEntry[]>([]);
  const [queueSize, setQueueSize] = useState(0);
  const [failed, setFailed] = useState<Failure[]>([]);
  const [online, setOnline] = useState(navigator.onLine);
  const [sheet, setSheet] = useState<Sheet | null>(null);
  // The sheet replaces the list, so the button that opened it is gone: when it closes, the focus goes
  // back to that stop's same button (or to the route's heading if the stop has moved on).
  const lastSheet = useRef<Sheet | null>(null);
  useEffect(() => {
    const was = lastSheet.current;
    lastSheet.current = sheet;
    if (sheet || !was) return;
    const buttons = document.querySelectorAll<HTMLButtonElement>(`li[data-order="${was.order.id}"] button`);
    const back = [...buttons].find((b) => b.textContent === ACTION_LABEL[was.action]);
    (back ?? document.querySelector<HTMLElement>('#route-title'))?.focus();
  }, [sheet]);
  const [onDuty, setOnDuty] = useState(localStorage.getItem('ruta.courier.duty') === '1');
  const [note, setNote] = useState('');
  const flushing = useRef(false);

  useDutyLocation(me, onDuty);

  const refreshQueue = useCallback(async () => {
    const all = await pending();
    setQueueSize(all.length);
    setQueued(all.filter((e): e is MoveEntry => e.kind === 'move'));
    setFailed(await failures());
  }, []);

  // Bumped by every accepted move: a route read that started before it is older than what the
  // phone knows, and is dropped rather than taking a stop back to its previous status.
  const moves = useRef(0);
  const refreshStops = useCallback(async () => {
    const m = meRef.current;
    if (!m) return;
    const seen = moves.current;
    try {
      const s = await loadStops(m);
      if (moves.current !== seen) return;
      setStops(s);
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 401) {
        saveMe(null);
        setMe(null);
      }
    }
  }, []);

  const sync = useCallback(async () => {
    if (flushing.current || !meRef.current) return;
    flushing.current = true;
    try {
      const r = await flush(
        sender(() => meRef.current),
        (moved) => {
          const o = moved as Order;
          moves.current++;
          setStops((prev) => prev.map((p) => (p.id === o.id ? o : p)));
        },
      );
      if (r.sent > 0) await refreshStops();
    } finally {
      flushing.current = false;
      await refreshQueue();
    }
  }, [refreshQueue, refreshStops]);

  useEffect(() => {
    void refreshQueue();
    const up = () => {
      setOnline(true);
      void sync();
    };
    const down = () => setOnline(false);
    window.addEventListener('online', up);
    window.addEventListener('offline', down);
    const timer = setInterval(() => navigator.onLine && void sync(), 15_000);
    return () => {
      window.removeEventListener('online', up);
      window.removeEventListener('offline', down);
      clearInterval(timer);
    };
  }, [refreshQueue, sync]);

  // On start: confirm the session when online (it may have been revoked), then load the route.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per signed-in courier
  useEffect(() => {
    if (!me) return;
    void (async () => {
      try {
        const fresh = await api<CourierMe>(me, 'GET', '/v1/courier_session');
        const merged = { ...me, ...fresh, csrf_token: fresh.csrf_token ?? me.csrf_token };
        saveMe(merged);
        setMe(merged);
      } catch (e) {
        if (e instanceof ApiFailure && e.status === 401) {
          saveMe(null);
          setMe(null);
          return;
        }
      }
      await refreshStops();
      await sync();
    })();
  }, [me?.courier.id]);

  async function queue(entries: Entry[]) {
    await enqueue(entries);
    const move = entries.find((e) => e.kind === 'move');
    setNote(
      move ? `${ACTION_LABEL[move.action as Action]} saved${navigator.onLine ? '' : ' — will sync when online'}.` : '',
    );
    await refreshQueue();
    void sync();
  }

  function onAction(o: Order, a: Action) {
    if (a === 'deliver' || a === 'fail') return setSheet({ order: o, action: a });
    void queue([
      {
        kind: 'move',
        orderId: o.id,
        action: a,
        body: {},
        idempotencyKey: uuid(),
        queuedAt: Date.now(),
        to: TRANSITIONS[a].to,
      },
    ]);
  }

  async function signOut() {
    if (queueSize > 0 && !confirm(`${queueSize} action(s) have not synced yet and would be lost. Sign out anyway?`))
      return;
    try {
      await api(me, 'DELETE', '/v1/courier_session');
    } catch {}
    saveMe(null);
    setMe(null);
  }

  if (!me)
    return (
      <SignIn
        onSignedIn={(m) => {
          saveMe(m);
          setMe(m);
        }}
      />
    );

  // What the phone shows: the server's status, moved on by the actions still waiting to sync.
  const shown = stops
    .map((o) => {
      const last = queued.filter((q) => q.orderId === o.id).pop();
      return last ? ({ ...o, status: last.to } as Order) : o;
    })
    .filter(
      (o) =>
        !['delivered', 'partially_delivered', 'failed', 'returned', 'cancelled'].includes(o.status) ||
        queued.some((q) => q.orderId === o.id),
    );

  return (
    <div className="c-app">
      <header className="c-top">
        <div>
          <strong>{me.courier.name}</strong>
          <span className={`net ${online ? 'on' : 'off'}`}>{online ? 'Online' : 'Offline'}</span>
        </div>
        <label className="duty">
          <input
            type="checkbox"
            checked={onDuty}
            onChange={(e) => {
              setOnDuty(e.target.checked);
              localStorage.setItem('ruta.courier.duty', e.target.checked ? '1' : '0');
            }}
          />
          On duty
        </label>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <div className={`sync${queueSize ? ' waiting' : ''}`} role="status" aria-live="polite">
        {queueSize ? `${queueSize} waiting to sync` : 'All synced'}
        {queueSize > 0 && online && (
          <button type="button" onClick={() => void sync()}>
            Sync now
          </button>
        )}
      </div>
      {failed.map((f) => (
        <p key={f.seq} className="error-note" role="alert">
          {f.what} for {f.orderId} was refused: {f.message}{' '}
          <button type="button" onClick={() => void clearFailure(f.seq).then(refreshQueue)}>
            Dismiss
          </button>
        </p>
      ))}
      {note && <p className="note">{note}</p>}
      <main>
        {sheet?.action === 'deliver' && (
          <DeliverSheet order={sheet.order} onQueue={queue} onClose={() => setSheet(null)} />
        )}
        {sheet?.action === 'fail' && <FailSheet order={sheet.order} onQueue={queue} onClose={() => setSheet(null)} />}
        {!sheet && (
          <>
            <h1 id="route-title" tabIndex={-1}>
              Today's route
            </h1>
            {shown.length === 0 ? (
              <p className="muted">No stops assigned to you right now.</p>
            ) : (
              <ol className="stops">
                {shown.map((o, i) => (
                  <Stop key={o.id} order={o} index={i} onAction={onAction} />
                ))}
              </ol>
            )}
            <button type="button" onClick={() => void refreshStops()}>
              Refresh
            </button>
          </>
        )}
      </main>
    </div>
  );
}
