import QRCode from 'qrcode';
import { type FormEvent, useState } from 'react';
import { type Courier, rawJson, type Schemas, unwrap, when } from '../shared/api';
import { useSession } from './session';
import { ErrorNote, errorsOf, Field, useLoad } from './ui';

type Vehicle = Schemas['Vehicle'];
const VEHICLES: Vehicle[] = ['on_foot', 'bicycle', 'motorcycle', 'car', 'van', 'truck'];

interface SignInCode {
  code: string;
  url: string;
  expires_at: string;
  qr: string;
}

function CourierForm({ initial, onSaved }: { initial?: Courier; onSaved: (c: Courier) => void }) {
  const { client } = useSession();
  const [name, setName] = useState(initial?.name ?? '');
  const [phone, setPhone] = useState(initial?.phone ?? '');
  const [vehicle, setVehicle] = useState<string>(initial?.vehicle ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});

  async function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    try {
      const c = initial
        ? await unwrap(
            client.PATCH('/v1/couriers/{id}', {
              params: { path: { id: initial.id } },
              body: { name, phone: phone || null, vehicle: (vehicle || null) as Vehicle | null },
            }),
          )
        : await unwrap(
            client.POST('/v1/couriers', {
              body: { name, ...(phone ? { phone } : {}), ...(vehicle ? { vehicle: vehicle as Vehicle } : {}) },
              headers: { 'Idempotency-Key': crypto.randomUUID() },
            }),
          );
      onSaved(c);
      if (!initial) {
        setName('');
        setPhone('');
        setVehicle('');
      }
    } catch (err) {
      setErrors(errorsOf(err));
    }
  }

  return (
    <form className="inline-form" onSubmit={submit} aria-label={initial ? `Edit ${initial.name}` : 'New courier'}>
      <Field label="Name" name="name" value={name} onChange={setName} errors={errors} required />
      <Field
        label="Phone"
        name="phone"
        value={phone}
        onChange={setPhone}
        errors={errors}
        placeholder="+51987654321"
        inputMode="tel"
      />
      <Field label="Vehicle" name="vehicle" errors={errors}>
        <select aria-label="Vehicle" value={vehicle} onChange={(e) => setVehicle(e.target.value)}>
          <option value="">—</option>
          {VEHICLES.map((v) => (
            <option key={v} value={v}>
              {v.replace('_', ' ')}
            </option>
          ))}
        </select>
      </Field>
      {errors[''] && (
        <p className="error-note" role="alert">
          {errors['']}
        </p>
      )}
      <button type="submit" className="primary">
        {initial ? 'Save' : 'Add courier'}
      </button>
    </form>
  );
}

export default function Couriers() {
  const session = useSession();
  const { client } = session;
  const list = useLoad(() => unwrap(client.GET('/v1/couriers', { params: { query: { limit: 100 } } })), []);
  const [editing, setEditing] = useState<string | null>(null);
  const [codes, setCodes] = useState<Record<string, SignInCode | string>>({});
  const [notes, setNotes] = useState<Record<string, string>>({});
  const [failures, setFailures] = useState<Record<string, unknown>>({});

  /** Disable (its phones are signed out at once, DESIGN §9) or enable again, then re-read the list. */
  async function setStatus(c: Courier, status: 'active' | 'disabled') {
    setFailures((f) => ({ ...f, [c.id]: null }));
    try {
      await unwrap(client.PATCH('/v1/couriers/{id}', { params: { path: { id: c.id } }, body: { status } }));
      setNotes((n) => ({ ...n, [c.id]: status === 'disabled' ? `${c.name} is disabled.` : `${c.name} is enabled.` }));
      await list.reload();
    } catch (e) {
      setFailures((f) => ({ ...f, [c.id]: e }));
    }
  }

  /** A lost phone: every phone session of the courier ends now. */
  async function signOutEverywhere(c: Courier) {
    setFailures((f) => ({ ...f, [c.id]: null }));
    try {
      const r = await unwrap(
        client.POST('/v1/couriers/{id}/sign_out_everywhere', { params: { path: { id: c.id } }, body: {} }),
      );
      const n = r.sessions_ended;
      setNotes((x) => ({ ...x, [c.id]: `Signed out of ${n} phone session${n === 1 ? '' : 's'}.` }));
    } catch (e) {
      setFailures((f) => ({ ...f, [c.id]: e }));
    }
  }

  async function signInPhone(c: Courier) {
    try {
      const r = await rawJson<Omit<SignInCode, 'qr'>>(
        session.creds(),
        'POST',
        `/v1/couriers/${c.id}/sign_in_codes`,
        {},
      );
      const target = r.url || `${location.origin}/courier/#code=${r.code}`;
      const qr = await QRCode.toDataURL(target, { margin: 1, width: 220 });
      setCodes({ ...codes, [c.id]: { ...r, url: target, qr } });
    } catch (e) {
      setCodes({ ...codes, [c.id]: e instanceof Error ? e.message : 'Could not create a code.' });
    }
  }

  const couriers = list.data?.data ?? [];
  return (
    <section aria-labelledby="couriers-title">
      <h1 id="couriers-title">Couriers</h1>
      <CourierForm onSaved={() => void list.reload()} />
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
              <p>
                Last ping:{' '}
                {c.location
                  ? `${when(c.location.recorded_at)} (${c.location.lat.toFixed(5)}, ${c.location.lng.toFixed(5)})`
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
                <button type="button" onClick={() => void signInPhone(c)} disabled={c.status === 'disabled'}>
                  Sign in a phone
                </button>
                <button
                  type="button"
                  onClick={() => void setStatus(c, c.status === 'disabled' ? 'active' : 'disabled')}
                >
                  {c.status === 'disabled' ? 'Enable' : 'Disable'}
                </button>
                <button type="button" onClick={() => void signOutEverywhere(c)}>
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
                    Code <strong className="code">{code.code}</strong>, valid until {when(code.expires_at)}, single use.
                    Open <code>{location.origin}/courier/</code> on the phone and type it, or scan the QR code.
                  </p>
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
