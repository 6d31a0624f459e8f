import { type FormEvent, useState } from 'react';
import { type Courier, type Schemas, unwrap } from '../../shared/api';
import { phoneE164 } from '../../shared/phone';
import { typedNumber } from '../../shared/text';
import type { Depot } from '../planning/common';
import { useSession } from '../session';
import { errorsOf, Field, useGuard, useRequestKey } from '../ui';

type Vehicle = Schemas['Vehicle'];
const VEHICLES: Vehicle[] = ['on_foot', 'bicycle', 'motorcycle', 'car', 'van', 'truck'];

/** The shift and vehicle fields plans use (DESIGN §10), as the form holds them: text, '' for none. */
const SHIFT_FIELDS = [
  'shift_start',
  'shift_end',
  'capacity_kg',
  'capacity_packages',
  'start_depot',
  'end_depot',
  'max_stops',
  'max_route_minutes',
  'max_route_km',
  'route_end',
] as const;
/** DESIGN §16's skills and break, as text: skills comma-separated, the break in three fields. */
const MORE_FIELDS = ['skills', 'break_earliest', 'break_latest', 'break_minutes'] as const;
type ShiftField = (typeof SHIFT_FIELDS)[number] | (typeof MORE_FIELDS)[number];
type ShiftForm = Record<ShiftField, string>;

const shiftFormOf = (c?: Courier): ShiftForm => ({
  ...(Object.fromEntries(SHIFT_FIELDS.map((k) => [k, c?.[k] == null ? '' : String(c[k])])) as ShiftForm),
  route_end: c?.route_end === 'last_stop' ? 'last_stop' : '',
  skills: (c?.skills ?? []).join(', '),
  break_earliest: c?.break?.earliest ?? '',
  break_latest: c?.break?.latest ?? '',
  break_minutes: c?.break ? String(c.break.duration_min) : '',
});

const LIMITS: { k: 'max_stops' | 'max_route_minutes' | 'max_route_km'; label: string }[] = [
  { k: 'max_stops', label: 'Most stops' },
  { k: 'max_route_minutes', label: 'Longest route (min)' },
  { k: 'max_route_km', label: 'Longest route (km)' },
];
const BREAK: { k: 'break_earliest' | 'break_latest' | 'break_minutes'; label: string }[] = [
  { k: 'break_earliest', label: 'Break from' },
  { k: 'break_latest', label: 'Break starts by' },
  { k: 'break_minutes', label: 'Break (min)' },
];

/** The body's shift fields: numbers as numbers; an empty field is null (none: the depot's day, no limit). */
function shiftBody(f: ShiftForm) {
  // "30,5" is 30.5; what is no number stays NaN, which save() refuses (JSON sends NaN as null: no limit).
  const num = (v: string) => (v.trim() === '' ? null : typedNumber(v));
  const text = (v: string) => (v.trim() === '' ? null : v.trim());
  return {
    shift_start: text(f.shift_start),
    shift_end: text(f.shift_end),
    capacity_kg: num(f.capacity_kg),
    capacity_packages: num(f.capacity_packages),
    start_depot: text(f.start_depot),
    end_depot: text(f.end_depot),
    max_stops: num(f.max_stops),
    max_route_minutes: num(f.max_route_minutes),
    max_route_km: num(f.max_route_km),
    route_end: f.route_end === 'last_stop' ? ('last_stop' as const) : null,
    skills:
      f.skills.trim() === ''
        ? null
        : f.skills
            .split(',')
            .map((x) => x.trim().toLowerCase())
            .filter(Boolean),
    // All three or none: a break with a missing field is sent as it is, for the API to name it.
    break:
      f.break_earliest === '' && f.break_latest === '' && f.break_minutes === ''
        ? null
        : { earliest: f.break_earliest, latest: f.break_latest, duration_min: typedNumber(f.break_minutes) },
  };
}

export function CourierForm({
  initial,
  depots,
  onSaved,
}: {
  initial?: Courier;
  depots: Depot[];
  onSaved: (c: Courier) => void;
}) {
  const { client } = useSession();
  const [name, setName] = useState(initial?.name ?? '');
  const [phone, setPhone] = useState(initial?.phone ?? '');
  const [vehicle, setVehicle] = useState<string>(initial?.vehicle ?? '');
  const [shift, setShift] = useState<ShiftForm>(() => shiftFormOf(initial));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const setField = (k: ShiftField) => (v: string) => setShift((f) => ({ ...f, [k]: v }));
  // One save at a time (a ref: two clicks in one task send one request), and one Idempotency-Key
  // per new courier's body until it is created: a key per click let a double click add two couriers.
  const { busy, run } = useGuard();
  const requestKey = useRequestKey();

  function submit(e: FormEvent) {
    e.preventDefault();
    void run('save', save);
  }

  async function save() {
    const fields = shiftBody(shift);
    const notNumbers = Object.entries({ ...fields, 'break.duration_min': fields.break?.duration_min })
      .filter(([, v]) => typeof v === 'number' && !Number.isFinite(v))
      .map(([k]) => [k, 'Enter a number, such as 12.5.']);
    setErrors(Object.fromEntries(notNumbers));
    if (notNumbers.length) return;
    // "+51 912 345 678" as the API's E.164; a number without its country code is sent as typed, and
    // the API says what it needs (couriers are the carrier's: no account's default country applies).
    const typed = phoneE164(phone, null);
    setPhone(typed);
    try {
      let c: Courier;
      if (initial) {
        c = await unwrap(
          client.PATCH('/v1/couriers/{id}', {
            params: { path: { id: initial.id } },
            body: { name, phone: typed || null, vehicle: (vehicle || null) as Vehicle | null, ...fields },
          }),
        );
      } else {
        const body = {
          name,
          ...(typed ? { phone: typed } : {}),
          ...(vehicle ? { vehicle: vehicle as Vehicle } : {}),
          // Only what was filled in: a new courier without a shift works its depot's day.
          ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null)),
        };
        c = await unwrap(
          client.POST('/v1/couriers', { body, headers: { 'Idempotency-Key': requestKey.keyFor(body) } }),
        );
        requestKey.done();
      }
      onSaved(c);
      if (!initial) {
        setName('');
        setPhone('');
        setVehicle('');
        setShift(shiftFormOf());
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
      <Field
        label="Shift starts"
        name="shift_start"
        type="time"
        value={shift.shift_start}
        onChange={setField('shift_start')}
        errors={errors}
      />
      <Field
        label="Shift ends"
        name="shift_end"
        type="time"
        value={shift.shift_end}
        onChange={setField('shift_end')}
        errors={errors}
      />
      <Field
        label="Capacity (kg)"
        name="capacity_kg"
        value={shift.capacity_kg}
        onChange={setField('capacity_kg')}
        errors={errors}
        inputMode="decimal"
      />
      <Field
        label="Capacity (packages)"
        name="capacity_packages"
        value={shift.capacity_packages}
        onChange={setField('capacity_packages')}
        errors={errors}
        inputMode="numeric"
      />
      {(['start_depot', 'end_depot'] as const).map((k) => (
        <Field key={k} label={k === 'start_depot' ? 'Starts at depot' : 'Ends at depot'} name={k} errors={errors}>
          <select
            aria-label={k === 'start_depot' ? 'Starts at depot' : 'Ends at depot'}
            value={shift[k]}
            onChange={(e) => setField(k)(e.target.value)}
          >
            <option value="">{k === 'start_depot' ? 'The plan’s depot' : 'Where it starts'}</option>
            {depots.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </Field>
      ))}
      {LIMITS.map(({ k, label }) => (
        <Field
          key={k}
          label={label}
          name={k}
          value={shift[k]}
          onChange={setField(k)}
          errors={errors}
          inputMode={k === 'max_route_km' ? 'decimal' : 'numeric'}
        />
      ))}
      <Field label="Route ends" name="route_end" errors={errors}>
        <select aria-label="Route ends" value={shift.route_end} onChange={(e) => setField('route_end')(e.target.value)}>
          <option value="">At its end depot</option>
          <option value="last_stop">At its last stop</option>
        </select>
      </Field>
      <Field
        label="Skills"
        name="skills"
        value={shift.skills}
        onChange={setField('skills')}
        errors={errors}
        placeholder="cold, large"
      />
      {BREAK.map(({ k, label }) => (
        <Field
          key={k}
          label={label}
          name={
            k === 'break_minutes' ? 'break.duration_min' : k === 'break_earliest' ? 'break.earliest' : 'break.latest'
          }
          type={k === 'break_minutes' ? undefined : 'time'}
          value={shift[k]}
          onChange={setField(k)}
          errors={errors}
          inputMode={k === 'break_minutes' ? 'numeric' : undefined}
        />
      ))}
      <p className="muted">
        Without a shift the courier works its depot’s working day (see the depot); without a capacity, no limit.
      </p>
      {errors[''] && (
        <p className="error-note" role="alert">
          {errors['']}
        </p>
      )}
      <button type="submit" className="primary" disabled={busy !== null}>
        {initial ? 'Save' : 'Add courier'}
      </button>
    </form>
  );
}
