import QRCode from 'qrcode';
import { useState } from 'react';
import { isLoopbackUrl, isPlainHttpUrl } from '../../../../src/shared/public-url.js';
import {
  allCouriers,
  allDepots,
  browserZone,
  type Courier,
  hoursIn,
  type Schemas,
  unwrap,
  whenIn,
} from '../../shared/api';
import { plural } from '../../shared/text';
import { useSession } from '../session';
import { ErrorNote, Secret, useGuard, useLoad } from '../ui';
import { CourierForm } from './CourierForm';

/** A code as shown: the API's answer and its QR image. */
type SignInCode = Schemas['CourierSignInCode'] & { qr: string };

export default function Couriers() {
  const session = useSession();
  const { client } = session;
  const list = useLoad(() => allCouriers(client), []);
  const depotList = useLoad(() => allDepots(client), []);
  const depots = depotList.data ?? [];
  const [editing, setEditing] = useState<string | null>(null);
  const [codes, setCodes] = useState<Record<string, SignInCode | string>>({});
  const [notes, setNotes] = useState<Record<string, string>>({});
  const [failures, setFailures] = useState<Record<string, unknown>>({});
  // One action at a time (a ref: two clicks in one task send one request): a double click on Sign
  // in a phone made two codes, the first live for 15 minutes and never shown.
  const { run } = useGuard();

  /** Disable (its phones are signed out at once, DESIGN §9) or enable again, then re-read the list. */
  function setStatus(c: Courier, status: 'active' | 'disabled') {
    void run(c.id, async () => {
      setFailures((f) => ({ ...f, [c.id]: null }));
      try {
        await unwrap(client.PATCH('/v1/couriers/{id}', { params: { path: { id: c.id } }, body: { status } }));
        setNotes((n) => ({
          ...n,
          [c.id]: status === 'disabled' ? `${c.name} is disabled.` : `${c.name} is enabled.`,
        }));
        await list.reload();
      } catch (e) {
        setFailures((f) => ({ ...f, [c.id]: e }));
      }
    });
  }

  /** A lost phone: every phone session of the courier ends now. */
  function signOutEverywhere(c: Courier) {
    void run(c.id, async () => {
      setFailures((f) => ({ ...f, [c.id]: null }));
      try {
        const r = await unwrap(
          client.POST('/v1/couriers/{id}/sign_out_everywhere', { params: { path: { id: c.id } }, body: {} }),
        );
        const n = r.sessions_ended;
        setNotes((x) => ({ ...x, [c.id]: `Signed out of ${plural(n, 'phone session')}.` }));
      } catch (e) {
        setFailures((f) => ({ ...f, [c.id]: e }));
      }
    });
  }

  function signInPhone(c: Courier) {
    void run(c.id, async () => {
      try {
        const r = await unwrap(client.POST('/v1/couriers/{id}/sign_in_codes', { params: { path: { id: c.id } } }));
        const target = r.url || `${location.origin}/courier/#code=${r.code}`;
        const qr = await QRCode.toDataURL(target, { margin: 1, width: 220 });
        setCodes((x) => ({ ...x, [c.id]: { ...r, url: target, qr } }));
      } catch (e) {
        setCodes((x) => ({ ...x, [c.id]: e instanceof Error ? e.message : 'Could not create a code.' }));
      }
    });
  }

  /**
   * The zone a courier's shift is read in (docs/planning.md): its start depot's; without one, the
   * depot of the plan it is in, so a single zone when every depot shares it (or there is none, the
   * carrier's), else no zone yet (the end depot's would be a guess the server does not make).
   */
  function shiftZone(c: Courier): string | null {
    const own = depots.find((d) => d.id === c.start_depot);
    if (own) return own.timezone;
    const zones = new Set(depots.map((d) => d.timezone));
    if (zones.size > 1) return null;
    return zones.size === 1 ? [...zones][0]! : (session.me?.timezone ?? browserZone());
  }

  function shift(c: Courier): string {
    const start = c.shift_start ?? 'depot’s start';
    const end = c.shift_end ?? 'depot’s end';
    const zone = shiftZone(c);
    return zone ? `Shift ${hoursIn(start, end, zone)}` : `Shift ${start}–${end} (in the zone of the plan’s depot)`;
  }

  const couriers = list.data ?? [];
  return (
    <section aria-labelledby="couriers-title">
      <h1 id="couriers-title">Couriers</h1>
      <CourierForm depots={depots} onSaved={() => void list.reload()} />
      <ErrorNote error={list.error} />
      <ul className="cards">
        {couriers.map((c) => {
          const code = codes[c.id];
          return (
            <li key={c.id} className="card">
              <h2>{c.name}</h2>
              <p className="muted">
                {c.id} · {c.status} · {c.phone ?? 'no phone'} · {c.vehicle?.replace('_', ' ') ?? 'no vehicle'}
              </p>
              <p className="muted">
                {c.shift_start || c.shift_end ? shift(c) : 'The depot’s working day'}
                {c.capacity_kg !== null ? ` · ${c.capacity_kg} kg` : ''}
                {c.capacity_packages !== null ? ` · ${c.capacity_packages} packages` : ''}
              </p>
              <p>
                Last ping:{' '}
                {c.location
                  ? `${whenIn(c.location.recorded_at, session.me?.timezone ?? browserZone())} (${c.location.lat.toFixed(5)}, ${c.location.lng.toFixed(5)})`
                  : 'never'}
              </p>
              <div className="buttons">
                <button
                  type="button"
                  onClick={() => setEditing(editing === c.id ? null : c.id)}
                  aria-expanded={editing === c.id}
                >
                  Edit
                </button>
                <button type="button" onClick={() => signInPhone(c)} disabled={c.status === 'disabled'}>
                  Sign in a phone
                </button>
                <button type="button" onClick={() => setStatus(c, c.status === 'disabled' ? 'active' : 'disabled')}>
                  {c.status === 'disabled' ? 'Enable' : 'Disable'}
                </button>
                <button type="button" onClick={() => signOutEverywhere(c)}>
                  Sign out everywhere
                </button>
              </div>
              {notes[c.id] && (
                <p className="note" role="status">
                  {notes[c.id]}
                </p>
              )}
              <ErrorNote error={failures[c.id]} />
              {editing === c.id && (
                <CourierForm
                  initial={c}
                  depots={depots}
                  onSaved={() => {
                    setEditing(null);
                    void list.reload();
                  }}
                />
              )}
              {typeof code === 'string' && (
                <p className="error-note" role="alert">
                  {code}
                </p>
              )}
              {code && typeof code !== 'string' && (
                <div className="signin-code" role="status">
                  <img src={code.qr} alt={`QR code to sign ${c.name}'s phone in`} width={220} height={220} />
                  <p>
                    Code <strong className="code">{code.code}</strong>, valid until{' '}
                    {whenIn(code.expires_at, session.me?.timezone ?? browserZone())}, single use. Open{' '}
                    <code>{location.origin}/courier/</code> on the phone and type it, or scan the QR code.
                  </p>
                  <Secret value={code.url ?? ''} label="sign-in link" />
                  {isLoopbackUrl(code.url ?? '') && (
                    <p className="loopback-warning" role="alert">
                      This link points to this computer ({new URL(code.url ?? '').host}): a phone cannot open it. Ask
                      whoever runs Ruta to set <code>RUTA_PUBLIC_URL</code> to the address phones reach, such as{' '}
                      <code>https://ruta.example.com</code> (docs/operations.md, "The public address and https").
                    </p>
                  )}
                  {isPlainHttpUrl(code.url ?? '') && (
                    <p className="loopback-warning" role="alert">
                      This link is plain http: the phone can sign in and deliver, but its browser gives the courier app
                      no location, camera or offline start. Serve Ruta over https for couriers (docs/operations.md, "The
                      public address and https").
                    </p>
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {list.data && couriers.length === 0 && (
        <p className="muted">
          No courier in {session.mode === 'live' ? 'live' : 'test'} yet. Add one above, then “Sign in a phone” shows the
          code they type in the courier app.
        </p>
      )}
    </section>
  );
}
