import { useEffect, useRef, useState } from 'react';
import { unwrap } from '../shared/api';
import { useSession } from './session';
import { useLoad } from './ui';

/**
 * The carrier's merchant accounts (GET /v1/accounts), and an account's name where the API gives its
 * id (a webhook delivery, an endpoint, a user): the id until the list arrives, '—' for none.
 */
export function useAccounts() {
  const { client, mode } = useSession();
  const accounts = useLoad(() => unwrap(client.GET('/v1/accounts')), [mode]);
  const list = accounts.data?.data ?? [];
  const nameOf = (id: string | null | undefined) => (id ? (list.find((a) => a.id === id)?.name ?? id) : '—');
  return { list, loaded: accounts.data, nameOf };
}

/**
 * Pick a merchant account by name (GET /v1/accounts, the carrier's list): a text field with the
 * browser's own suggestions (a datalist, which the keyboard and screen readers know as a combobox).
 * Typing a name, or pasting an `acct_…` id, picks that account; emptying the field picks none.
 */
export function AccountPicker(props: PickerProps) {
  return <AccountField {...props} accounts={useAccounts()} />;
}

interface PickerProps {
  id: string;
  /** The chosen account's id, or '' for all. */
  value: string;
  onChange: (accountId: string) => void;
  placeholder?: string;
  aria?: object;
}

/** The picker over a list the page already holds (its own names of accounts): one read, not two. */
export function AccountField({
  id,
  value,
  onChange,
  placeholder = 'All accounts',
  aria = {},
  accounts,
}: PickerProps & { accounts: ReturnType<typeof useAccounts> }) {
  const { list, loaded, nameOf } = accounts;
  const [text, setText] = useState(value);
  const shown = useRef(value);
  // The field shows the chosen account's name, also when the choice comes from elsewhere (the URL),
  // and empties when the choice is taken away; a name being typed is left alone.
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the choice and the loaded list only
  useEffect(() => {
    if (value) setText(nameOf(value));
    else if (shown.current) setText('');
    shown.current = value;
  }, [value, loaded]);
  // A name typed before the list arrived (a fast typist, a slow network) is picked once it has.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the list arrives, not on each key
  useEffect(() => {
    if (!value && text.trim() !== '') input(text);
  }, [loaded]);

  function input(v: string) {
    setText(v);
    const t = v.trim();
    if (t === '') return onChange('');
    const match = list.find((a) => a.name.toLowerCase() === t.toLowerCase()) ?? list.find((a) => a.id === t);
    if (match) onChange(match.id);
    else if (/^acct_\w+$/.test(t)) onChange(t);
  }

  return (
    <>
      <input
        id={id}
        type="search"
        list={`${id}-list`}
        value={text}
        placeholder={placeholder}
        autoComplete="off"
        onChange={(e) => input(e.target.value)}
        {...aria}
      />
      <datalist id={`${id}-list`}>
        {list.map((a) => (
          <option key={a.id} value={a.name}>
            {a.id}
          </option>
        ))}
      </datalist>
    </>
  );
}
