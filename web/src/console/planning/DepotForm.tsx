import { type FormEvent, useState } from 'react';
import { unwrap } from '../../shared/api';
import { typedNumber } from '../../shared/text';
import { AddressSuggest } from '../AddressSuggest';
import { useSession } from '../session';
import { errorsOf, Field } from '../ui';
import type { Depot } from './common';

export function DepotForm({ onCreated }: { onCreated: (d: Depot) => void }) {
  const { client } = useSession();
  const [name, setName] = useState('');
  const [lat, setLat] = useState('');
  const [lng, setLng] = useState('');
  const [address, setAddress] = useState('');
  const [timezone, setTimezone] = useState('');
  // The working day of couriers without a shift; empty: the carrier's (RUTA_DEFAULT_SHIFT).
  const [shiftStart, setShiftStart] = useState('');
  const [shiftEnd, setShiftEnd] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});

  async function submit(e: FormEvent) {
    e.preventDefault();
    // "-12,11" (a decimal comma) is -12.11; parseFloat read it as -12, a depot 12 km away.
    const la = typedNumber(lat);
    const ln = typedNumber(lng);
    const local: Record<string, string> = {};
    if (!Number.isFinite(la)) local.lat = 'Enter a latitude, such as -12.0464.';
    if (!Number.isFinite(ln)) local.lng = 'Enter a longitude, such as -77.0428.';
    setErrors(local);
    if (Object.keys(local).length) return;
    try {
      const d = await unwrap(
        client.POST('/v1/depots', {
          body: {
            name,
            lat: la,
            lng: ln,
            ...(address ? { address } : {}),
            ...(timezone ? { timezone } : {}),
            ...(shiftStart ? { shift_start: shiftStart } : {}),
            ...(shiftEnd ? { shift_end: shiftEnd } : {}),
          },
        }),
      );
      onCreated(d);
    } catch (err) {
      setErrors(errorsOf(err));
    }
  }

  return (
    <form className="grid-form depot-form" onSubmit={submit} aria-label="New depot">
      <Field label="Depot name" name="name" value={name} onChange={setName} errors={errors} required />
      <Field label="Address" name="address" value={address} onChange={setAddress} errors={errors} />
      <AddressSuggest
        text={address}
        picked={lat !== '' && lng !== ''}
        onPick={(p) => {
          setLat(String(p.lat));
          setLng(String(p.lng));
        }}
      />
      <Field
        label="Latitude"
        name="lat"
        value={lat}
        onChange={setLat}
        errors={errors}
        required
        inputMode="decimal"
        placeholder="-12.0464"
      />
      <Field
        label="Longitude"
        name="lng"
        value={lng}
        onChange={setLng}
        errors={errors}
        required
        inputMode="decimal"
        placeholder="-77.0428"
      />
      <Field
        label="Time zone"
        name="timezone"
        value={timezone}
        onChange={setTimezone}
        errors={errors}
        placeholder="America/Lima"
      />
      <Field
        label="Working day starts"
        name="shift_start"
        type="time"
        value={shiftStart}
        onChange={setShiftStart}
        errors={errors}
      />
      <Field
        label="Working day ends"
        name="shift_end"
        type="time"
        value={shiftEnd}
        onChange={setShiftEnd}
        errors={errors}
      />
      {errors[''] && (
        <p className="error-note" role="alert">
          {errors['']}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary">
          Create depot
        </button>
      </div>
    </form>
  );
}
