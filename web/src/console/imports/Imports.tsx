import { type FormEvent, useState } from 'react';
import { AccountPicker } from '../AccountPicker';
import { hashQuery, setHashQuery } from '../router';
import { useSession } from '../session';
import { ImportList } from './ImportList';
import { ImportPage } from './ImportPage';

/**
 * Bulk import (DESIGN §11): `#/imports` and `#/imports/imp_…`. Merchant users import for their own
 * account; admins and dispatchers for the merchant they pick (`?account=acct_…` in the address, so
 * a reload or a shared link keeps it), which the API takes as `account` on every call.
 */
export default function Imports({ id }: { id?: string }) {
  const session = useSession();
  const carrier = session.me?.role !== 'merchant';
  const [account, setAccount] = useState(() => hashQuery().get('account') ?? '');
  if (carrier && !account) return <ChooseAccount onChosen={setAccount} />;
  const on = carrier ? account : undefined;
  return id ? <ImportPage key={id} id={id} account={on} /> : <ImportList account={on} />;
}

/** The merchant the carrier imports for, picked by name (or an `acct_…` id pasted). */
function ChooseAccount({ onChosen }: { onChosen: (a: string) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  function submit(e: FormEvent) {
    e.preventDefault();
    const a = value.trim();
    if (!/^acct_\w+$/.test(a)) {
      setError('Pick a merchant account by its name (or paste its acct_… id).');
      return;
    }
    const q = hashQuery();
    q.set('account', a);
    setHashQuery(q);
    onChosen(a);
  }
  return (
    <section aria-labelledby="imports-title">
      <h1 id="imports-title">Imports</h1>
      <p>Import orders on behalf of a merchant: the orders and the import are the merchant’s.</p>
      <form className="inline-form" onSubmit={submit} aria-label="Import for a merchant" noValidate>
        <label htmlFor="import-account">Merchant account</label>
        <AccountPicker
          id="import-account"
          value={value}
          onChange={(a) => {
            setValue(a);
            setError('');
          }}
          placeholder="Merchant name"
          aria={{
            'aria-invalid': error ? true : undefined,
            'aria-describedby': error ? 'import-account-err' : undefined,
          }}
        />
        <button type="submit" className="primary">
          Continue
        </button>
        {error && (
          <p id="import-account-err" className="field-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </section>
  );
}
