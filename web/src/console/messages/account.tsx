import { useState } from 'react';
import { AccountPicker } from '../AccountPicker';
import { hashQuery, setHashQuery } from '../router';
import { useSession } from '../session';

/**
 * Whose settings a page works on. A merchant user: its own account (the API knows it; nothing is
 * sent). Admins and dispatchers pick the merchant with the AccountPicker; the choice is kept in the
 * address (`?account=acct_…`) so a reload or a shared link keeps it. '' means the carrier's
 * defaults (settings pages) or every account (the log).
 */
export function useSettingsAccount(): { carrier: boolean; account: string; setAccount: (a: string) => void } {
  const session = useSession();
  const carrier = session.me?.role !== 'merchant';
  const [account, set] = useState(() => (carrier ? (hashQuery().get('account') ?? '') : ''));
  function setAccount(a: string) {
    const q = hashQuery();
    if (a) q.set('account', a);
    else q.delete('account');
    setHashQuery(q);
    set(a);
  }
  return { carrier, account, setAccount };
}

/** The `account` query for the settings routes: only when the carrier named one. */
export const accountQuery = (account: string) => (account ? { account } : {});

/** The carrier's account choice, above a settings page; nothing for a merchant. */
export function AccountBar({
  id,
  carrier,
  account,
  setAccount,
  emptyMeans,
}: {
  id: string;
  carrier: boolean;
  account: string;
  setAccount: (a: string) => void;
  emptyMeans: string;
}) {
  if (!carrier) return null;
  return (
    <div className="inline-form account-bar">
      <div className="field">
        <label htmlFor={id}>Merchant account</label>
        <AccountPicker id={id} value={account} onChange={setAccount} placeholder={emptyMeans} />
      </div>
      <p className="muted">
        {account ? 'Changes apply to this merchant only.' : `Empty: ${emptyMeans.toLowerCase()}.`}
      </p>
    </div>
  );
}
