import { type FormEvent, useState } from 'react';
import { unwrap } from '../../shared/api';
import { phoneE164 } from '../../shared/phone';
import { typedNumber } from '../../shared/text';
import { AddressSuggest } from '../AddressSuggest';
import { go } from '../router';
import { useSession } from '../session';
import { errorsOf, Field, useGuard, useLoad, useRequestKey } from '../ui';

/** Form field name → the API's param path, so a 422 lands next to its field; then input mode and type. */
const FIELDS: [string, string, string?, string?][] = [
  ['customer.name', 'Customer name'],
  ['customer.phone', 'Customer phone', 'tel'],
  ['customer.email', 'Customer email', 'email'],
  ['delivery_address.address', 'Address'],
  ['delivery_address.district', 'District'],
  ['delivery_address.city', 'City'],
  ['delivery_address.reference', 'Reference'],
  ['delivery_address.lat', 'Latitude', 'decimal'],
  ['delivery_address.lng', 'Longitude', 'decimal'],
  ['items[0].description', 'Item'],
  ['items[0].quantity', 'Quantity', 'numeric'],
  ['items[0].weight_kg', 'Weight (kg)', 'decimal'],
  ['cash_on_delivery', 'Cash on delivery', 'decimal'],
  // A day without a time: a calendar day in the order's zone (docs/api.md, dates and time zones).
  ['requested_date', 'Delivery day', undefined, 'date'],
  ['time_window.start', 'Window from', undefined, 'time'],
  ['time_window.end', 'Window to', undefined, 'time'],
  ['requirements', 'Needs (skills, comma-separated: cold, large)'],
  ['external_order_id', 'Your order id'],
  ['customer_notes', 'Notes'],
];

const FLAGS = { requires_signature: 'Requires signature', requires_photo: 'Requires photo', is_urgent: 'Urgent' };
type Flag = keyof typeof FLAGS;

/**
 * Where an API error lands: `requirements[1]` under Needs; a whole object missing (`customer`,
 * `delivery_address`: nothing of it was typed) under its first required field.
 */
const fieldOf = (param: string) =>
  ({ customer: 'customer.name', delivery_address: 'delivery_address.address' })[param] ?? param.replace(/\[\d+\]$/, '');

/** What the form can say before asking the API: the required fields, and numbers that are not. */
export function checkValues(values: Record<string, string>): Record<string, string> {
  const errors: Record<string, string> = {};
  const empty = (k: string) => !values[k]?.trim();
  if (empty('customer.name')) errors['customer.name'] = 'Enter the customer’s name.';
  if (empty('delivery_address.address')) errors['delivery_address.address'] = 'Enter the delivery address.';
  for (const k of NUMERIC) {
    if (!empty(k) && !Number.isFinite(typedNumber(values[k] ?? ''))) errors[k] = 'Enter a number, such as 12.5.';
  }
  if (empty('items[0].description') && (!empty('items[0].quantity') || !empty('items[0].weight_kg'))) {
    errors['items[0].description'] = 'Describe the item, or leave its quantity and weight empty.';
  }
  return errors;
}

const NUMERIC = new Set([
  'delivery_address.lat',
  'delivery_address.lng',
  'items[0].quantity',
  'items[0].weight_kg',
  'cash_on_delivery',
]);

/** Builds the nested OrderCreate body from flat paths; empty fields are left out, not sent empty; flags always sent. */
export function buildBody(values: Record<string, string>, flags: Record<string, boolean>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [path, raw] of Object.entries(values)) {
    if (raw.trim() === '') continue;
    const value =
      path === 'requirements'
        ? raw
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
        : NUMERIC.has(path)
          ? typedNumber(raw)
          : raw.trim();
    const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
    let at: Record<string, unknown> = body;
    keys.forEach((k, i) => {
      if (i === keys.length - 1) at[k] = value;
      else {
        const nextIsIndex = /^\d+$/.test(keys[i + 1] ?? '');
        at[k] ??= nextIsIndex ? [] : {};
        at = at[k] as Record<string, unknown>;
      }
    });
  }
  for (const [k, v] of Object.entries(flags)) body[k] = v;
  return body;
}

/** Puts the person on the first field named, so they land on what to fix. */
function focusFirst(errors: Record<string, string>): void {
  const first = Object.keys(errors)[0];
  if (first) document.querySelector<HTMLInputElement>(`[name="${CSS.escape(first)}"]`)?.focus();
}

export default function NewOrder() {
  const { client } = useSession();
  const [values, setValues] = useState<Record<string, string>>({});
  // What the person ticked; an untouched box shows (and sends) what the account's proof settings
  // would decide, so that the box says what will happen: a signature unless signatures are off.
  const [chosen, setChosen] = useState<Partial<Record<Flag, boolean>>>({});
  const proof = useLoad(() => unwrap(client.GET('/v1/proof_settings')), []);
  const required = (k: Flag) =>
    (k === 'requires_signature' && proof.data?.signature === 'required') ||
    (k === 'requires_photo' && proof.data?.photo === 'required');
  const flagOf = (k: Flag): boolean =>
    required(k) || (chosen[k] ?? (k === 'requires_signature' ? proof.data?.signature !== 'off' : false));
  const flags = Object.fromEntries((Object.keys(FLAGS) as Flag[]).map((k) => [k, flagOf(k)]));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { busy, run } = useGuard();
  // One Idempotency-Key per body: a second click, or a retry after a network error, cannot create
  // the order twice; a body changed after a refusal is a new request with a new key.
  const requestKey = useRequestKey();
  // The country of numbers typed without +code; without settings (or before they load), none.
  const settings = useLoad(() => unwrap(client.GET('/v1/notification_settings')), []);
  const country = settings.data?.default_country ?? null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run('create', async () => {
      const local = checkValues(values);
      setErrors(local);
      if (Object.keys(local).length > 0) return focusFirst(local);
      const phone = values['customer.phone'];
      const typed = phone === undefined ? values : { ...values, 'customer.phone': phoneE164(phone, country) };
      setValues(typed);
      const body = buildBody(typed, flags);
      try {
        const order = await unwrap(
          client.POST('/v1/orders', { body: body as never, headers: { 'Idempotency-Key': requestKey.keyFor(body) } }),
        );
        go(`orders/${order.id}`);
      } catch (err) {
        const errs = Object.fromEntries(Object.entries(errorsOf(err)).map(([p, m]) => [fieldOf(p), m]));
        setErrors(errs);
        focusFirst(errs);
      }
    });
  };

  const known = new Set(FIELDS.map((f) => f[0]));
  const other = Object.entries(errors).filter(([p]) => !known.has(p));
  return (
    <section aria-labelledby="new-title">
      <h1 id="new-title">New order</h1>
      <form className="grid-form" onSubmit={submit} noValidate>
        {FIELDS.map(([name, label, mode, type]) => (
          <Field
            key={name}
            name={name}
            label={label}
            type={type}
            errors={errors}
            value={values[name] ?? ''}
            inputMode={mode as 'text'}
            required={name === 'customer.name' || name === 'delivery_address.address'}
            onChange={(v) => setValues({ ...values, [name]: v })}
          />
        ))}
        <AddressSuggest
          text={['delivery_address.address', 'delivery_address.district', 'delivery_address.city']
            .map((k) => values[k]?.trim())
            .filter(Boolean)
            .join(', ')}
          picked={Boolean(values['delivery_address.lat'] && values['delivery_address.lng'])}
          onPick={(p) =>
            setValues((v) => ({ ...v, 'delivery_address.lat': String(p.lat), 'delivery_address.lng': String(p.lng) }))
          }
        />
        {(Object.keys(FLAGS) as Flag[]).map((k) => (
          <label key={k} className="check">
            <input
              type="checkbox"
              checked={flagOf(k)}
              disabled={required(k)}
              onChange={(e) => setChosen({ ...chosen, [k]: e.target.checked })}
            />
            {FLAGS[k]}
            {required(k) ? <small className="muted"> (your proof settings require it)</small> : null}
          </label>
        ))}
        {other.map(([p, m]) => (
          <p key={p} className="error-note" role="alert">
            {p ? `${p}: ` : ''}
            {m}
          </p>
        ))}
        <button type="submit" className="primary" disabled={busy !== null}>
          Create order
        </button>
      </form>
    </section>
  );
}
