import { type FormEvent, useState } from 'react';
import { type Schemas, unwrap } from '../../shared/api';
import { AccountBar, accountQuery, useSettingsAccount } from '../messages/account';
import { useSession } from '../session';
import { ErrorNote, useLoad } from '../ui';

type ProofSettings = Schemas['ProofSettings'];
type Kind = 'signature' | 'photo' | 'pin' | 'id_check' | 'age_check';
type Level = ProofSettings['signature'];

const KINDS: { id: Kind; label: string; hint: string }[] = [
  { id: 'signature', label: 'Signature', hint: 'The receiver signs on the courier’s screen.' },
  { id: 'photo', label: 'Photo', hint: 'A photo of the parcel at the door.' },
  { id: 'pin', label: 'Delivery PIN', hint: 'A 4-digit code the customer gets in the “out for delivery” message.' },
  { id: 'id_check', label: 'ID check', hint: 'The receiver’s document type and number.' },
  { id: 'age_check', label: 'Age check (18+)', hint: 'Read off an ID document, which is then recorded too.' },
];
const LEVELS: { id: Level; label: string }[] = [
  { id: 'required', label: 'Required' },
  { id: 'optional', label: 'Optional' },
  { id: 'off', label: 'Off' },
];

/**
 * `#/proof`: what a delivery must capture, per merchant account (GET/PUT /v1/proof_settings).
 * Orders created afterwards follow; an order's own requires_* flags can only raise a level.
 */
export default function Proof() {
  const { carrier, account, setAccount } = useSettingsAccount();
  const { client, mode } = useSession();
  const loaded = useLoad(
    () => unwrap(client.GET('/v1/proof_settings', { params: { query: accountQuery(account) } })),
    [mode, account],
  );
  return (
    <section aria-labelledby="proof-title">
      <h1 id="proof-title">Proof of delivery</h1>
      <AccountBar
        id="proof-account"
        carrier={carrier}
        account={account}
        setAccount={setAccount}
        emptyMeans="Carrier defaults"
      />
      <ErrorNote error={loaded.error} />
      {loaded.data && <ProofForm key={JSON.stringify(loaded.data)} settings={loaded.data} account={account} />}
    </section>
  );
}

function ProofForm({ settings, account }: { settings: ProofSettings; account: string }) {
  const { client } = useSession();
  const [levels, setLevels] = useState<Record<Kind, Level>>(() => ({
    signature: settings.signature,
    photo: settings.photo,
    pin: settings.pin,
    id_check: settings.id_check,
    age_check: settings.age_check,
  }));
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState('');

  async function save(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      await unwrap(client.PUT('/v1/proof_settings', { params: { query: accountQuery(account) }, body: levels }));
      setSaved('Saved: orders created from now on follow these settings.');
    } catch (err) {
      setError(err);
    }
  }

  return (
    <form onSubmit={save} aria-label="Proof settings" className="proof-form">
      {settings.inherited && <p className="muted">This account uses the carrier’s defaults until it is saved.</p>}
      {KINDS.map((k) => (
        <fieldset key={k.id} className="proof-kind">
          <legend>{k.label}</legend>
          <p className="muted">{k.hint}</p>
          <div className="proof-levels">
            {LEVELS.map((l) => (
              <label key={l.id} className="check">
                <input
                  type="radio"
                  name={k.id}
                  value={l.id}
                  checked={levels[k.id] === l.id}
                  onChange={() => {
                    setLevels({ ...levels, [k.id]: l.id });
                    setSaved('');
                  }}
                />{' '}
                {l.label}
              </label>
            ))}
          </div>
        </fieldset>
      ))}
      <ErrorNote error={error} />
      <button type="submit" className="primary">
        Save proof settings
      </button>{' '}
      <span role="status" className="muted">
        {saved}
      </span>
    </form>
  );
}
