import { useState } from 'react';
import { allDepots, type Schemas, unwrap } from '../../shared/api';
import { useSession } from '../session';
import { errorsOf, Field, useGuard, useLoad } from '../ui';
import { type AccountDispatch, AutoDispatchField } from './AccountAutoDispatch';
import { type BrandingDraft, BrandingFields, brandingBody, brandingDraftOf } from './BrandingFields';
import { FormError } from './shared';

type Account = Schemas['Account'];
type Pricing = NonNullable<Account['pricing']>;

const PRICING: { key: keyof Pricing; label: string }[] = [
  { key: 'base_fee', label: 'Base fee (minor units)' },
  { key: 'per_km', label: 'Per km (minor units)' },
  { key: 'per_kg', label: 'Per kg (minor units)' },
  { key: 'included_kg', label: 'Included kg' },
  { key: 'urgent_fee', label: 'Urgent fee (minor units)' },
  { key: 'cod_fee_rate', label: 'COD fee rate (0 to 1)' },
  { key: 'minimum', label: 'Minimum (minor units)' },
];

type AccountDraft = {
  name: string;
  currency: string;
  lat: string;
  lng: string;
  timezone: string;
  depot: string;
} & Record<keyof Pricing, string>;

function draftOf(a?: Account): AccountDraft {
  const p = a?.pricing ?? {};
  const d = {
    name: a?.name ?? '',
    currency: a?.currency ?? '',
    lat: a?.origin ? String(a.origin.lat) : '',
    lng: a?.origin ? String(a.origin.lng) : '',
    timezone: a?.timezone ?? '',
    depot: a?.depot ?? '',
  } as AccountDraft;
  for (const { key } of PRICING) d[key] = p[key] === undefined ? '' : String(p[key]);
  return d;
}

/** The draft as an API body: empty pricing fields use the defaults; no origin when both are empty. */
function bodyOf(d: AccountDraft): {
  errors?: Record<string, string>;
  origin: Account['origin'];
  pricing: Account['pricing'];
} {
  const errors: Record<string, string> = {};
  const num = (v: string, param: string) => {
    const n = Number(v.trim());
    if (v.trim() === '' || !Number.isFinite(n)) errors[param] = 'Enter a number.';
    return n;
  };
  let origin: Account['origin'] = null;
  if (d.lat.trim() !== '' || d.lng.trim() !== '')
    origin = { lat: num(d.lat, 'origin.lat'), lng: num(d.lng, 'origin.lng') };
  const pricing: Pricing = {};
  for (const { key } of PRICING) if (d[key].trim() !== '') pricing[key] = num(d[key], `pricing.${key}`);
  return {
    ...(Object.keys(errors).length ? { errors } : {}),
    origin,
    pricing: Object.keys(pricing).length ? pricing : null,
  };
}

export function AccountForm({
  initial,
  dispatch,
  onSaved,
}: {
  initial?: Account;
  /** The account's auto-dispatch in this environment (editing only; absent until it is read). */
  dispatch?: AccountDispatch;
  onSaved: (made?: Schemas['CreatedAccount']) => void;
}) {
  const { client, mode } = useSession();
  const [d, setD] = useState<AccountDraft>(() => draftOf(initial));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = (k: keyof AccountDraft) => (v: string) => setD({ ...d, [k]: v });
  const [brand, setBrand] = useState<BrandingDraft>(() => brandingDraftOf(initial?.branding));
  // The environment's depots, to pick from by name: nobody should have to copy a dep_… id.
  const depotList = useLoad(() => allDepots(client), [mode]);
  const depots = depotList.data ?? [];
  // The override as picked (null: untouched, the one read); '' inherits the carrier's mode.
  const [auto, setAuto] = useState<AccountDispatch['own'] | '' | null>(null);
  const { busy, run } = useGuard();

  async function submit() {
    const b = bodyOf(d);
    setErrors(b.errors ?? {});
    if (b.errors) return;
    const currency = d.currency.trim().toUpperCase();
    // Empty: the carrier's zone, no depot (the API's null).
    const timezone = d.timezone.trim() || null;
    const depot = d.depot.trim() || null;
    try {
      if (initial) {
        await unwrap(
          client.PATCH('/v1/accounts/{id}', {
            params: { path: { id: initial.id } },
            body: {
              name: d.name,
              currency,
              origin: b.origin,
              pricing: b.pricing,
              timezone,
              depot,
              branding: await brandingBody(client, brand),
            },
          }),
        );
        await saveDispatch(initial.id);
        onSaved();
      } else {
        const made = await unwrap(
          client.POST('/v1/accounts', {
            body: {
              name: d.name,
              ...(currency ? { currency } : {}),
              ...(b.origin ? { origin: b.origin } : {}),
              ...(b.pricing ? { pricing: b.pricing } : {}),
              ...(timezone ? { timezone } : {}),
              ...(depot ? { depot } : {}),
            },
          }),
        );
        setD(draftOf());
        onSaved(made);
      }
    } catch (err) {
      setErrors(errorsOf(err));
    }
  }

  /** The override, when it was changed: its own request, after the account's (DESIGN §16). */
  async function saveDispatch(account: string) {
    if (!dispatch || auto === null || auto === (dispatch.own ?? '')) return;
    try {
      await unwrap(
        client.PATCH('/v1/dispatch_settings', { body: { accounts: [{ account, auto_dispatch: auto || null }] } }),
      );
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      throw new Error(`The account was saved, but not its auto-dispatch: ${msg}`);
    }
  }

  // The API names the object (origin, pricing) for a flaw inside it; show that under the group.
  const groupError = (name: 'origin' | 'pricing') =>
    errors[name] && (
      <p className="field-error" role="alert">
        {errors[name]}
      </p>
    );

  return (
    <form
      className="account-form"
      onSubmit={(e) => {
        e.preventDefault();
        void run('save', submit);
      }}
      noValidate
      aria-label={initial ? `Edit ${initial.name}` : 'New account'}
    >
      <div className="grid-form">
        <Field label="Name" name="name" value={d.name} onChange={set('name')} errors={errors} required />
        <Field
          label="Currency"
          name="currency"
          value={d.currency}
          onChange={set('currency')}
          errors={errors}
          placeholder="default of the server, e.g. USD"
        />
        <Field
          label="Time zone"
          name="timezone"
          value={d.timezone}
          onChange={set('timezone')}
          errors={errors}
          placeholder={
            initial ? `the carrier’s (now ${initial.effective_timezone})` : 'the carrier’s, e.g. America/Lima'
          }
        />
      </div>
      <fieldset>
        <legend>Pickup origin</legend>
        <div className="grid-form">
          <Field
            label="Origin latitude"
            name="origin.lat"
            value={d.lat}
            onChange={set('lat')}
            errors={errors}
            inputMode="decimal"
          />
          <Field
            label="Origin longitude"
            name="origin.lng"
            value={d.lng}
            onChange={set('lng')}
            errors={errors}
            inputMode="decimal"
          />
          <Field label="Depot (its time zone wins)" name="depot" errors={errors}>
            <select
              aria-label="Depot (its time zone wins)"
              value={d.depot}
              onChange={(e) => set('depot')(e.target.value)}
            >
              <option value="">None: the account’s time zone</option>
              {depots.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name} ({x.timezone})
                </option>
              ))}
              {/* A depot of the other environment (the API takes either): kept, shown by its id. */}
              {d.depot && !depots.some((x) => x.id === d.depot) && <option value={d.depot}>{d.depot}</option>}
            </select>
          </Field>
        </div>
        {groupError('origin')}
      </fieldset>
      <fieldset>
        <legend>Pricing (empty fields use the defaults)</legend>
        <div className="grid-form">
          {PRICING.map(({ key, label }) => (
            <Field
              key={key}
              label={label}
              name={`pricing.${key}`}
              value={d[key]}
              onChange={set(key)}
              errors={errors}
              inputMode="decimal"
            />
          ))}
        </div>
        {groupError('pricing')}
      </fieldset>
      {initial && dispatch && (
        <AutoDispatchField value={auto ?? dispatch.own ?? ''} onChange={setAuto} dispatch={dispatch} mode={mode} />
      )}
      {initial && <BrandingFields d={brand} set={setBrand} errors={errors} />}
      <FormError errors={errors} />
      <button type="submit" className="primary" disabled={busy !== null}>
        {initial ? 'Save account' : 'Create account'}
      </button>
    </form>
  );
}
