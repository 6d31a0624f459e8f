import { useState } from 'react';
import { type Schemas, unwrap } from '../../shared/api';
import { envText } from '../auto-dispatch';
import { useSession } from '../session';
import { ErrorNote, Secret, TableHead, useLoad } from '../ui';
import { dispatchOf, dispatchText } from './AccountAutoDispatch';
import { AccountForm } from './AccountForm';
import { KeyManager } from './Keys';
import { ShownOnce } from './shared';

type Account = Schemas['Account'];

function pricingText(p: Account['pricing']): string {
  if (!p) return 'defaults';
  return Object.entries(p)
    .map(([k, v]) => `${k.replace(/_/g, ' ')} ${v}`)
    .join(', ');
}

/** The zone its days are read in, and where that comes from (the depot's wins over its own). */
function zoneText(a: Account): string {
  if (a.depot) return `${a.effective_timezone} (its depot’s)`;
  return a.timezone ? a.effective_timezone : `${a.effective_timezone} (the carrier’s)`;
}

export function Accounts() {
  const { client, mode } = useSession();
  const list = useLoad(() => unwrap(client.GET('/v1/accounts')), [mode]);
  // Auto-dispatch is per environment (DESIGN §16): each account's override of this one, or the carrier's.
  const settings = useLoad(() => unwrap(client.GET('/v1/dispatch_settings')), [mode]);
  const [made, setMade] = useState<Schemas['CreatedAccount'] | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  // One account's API keys open at a time, under its row (DESIGN §8: admins manage every key).
  const [keysOf, setKeysOf] = useState<string | null>(null);
  // The edit form closes on save: this says it was saved, where the list starts.
  const [saved, setSaved] = useState('');

  return (
    <section aria-labelledby="admin-title">
      <h1 id="admin-title">Accounts</h1>
      <AccountForm
        onSaved={(m) => {
          setSaved('');
          setMade(m ?? null);
          void list.reload();
        }}
      />
      {made && (
        <ShownOnce>
          <p>
            Account {made.name} ({made.id}) created. Its secret keys are shown once: store them now.
          </p>
          <p>
            Test key: <Secret value={made.keys.test} label="test key" />
          </p>
          <p>
            Live key: <Secret value={made.keys.live} label="live key" />
          </p>
        </ShownOnce>
      )}
      {saved && (
        <p className="note" role="status">
          {saved}
        </p>
      )}
      <ErrorNote error={list.error} />
      <ErrorNote error={settings.error} />
      <div className="table-wrap">
        <table className="table" aria-label="Accounts">
          <TableHead
            columns={[
              'Name',
              'ID',
              'Currency',
              'Time zone',
              'Pickup origin',
              'Pricing',
              `Auto-dispatch (${envText(mode)})`,
            ]}
            actions
          />
          <tbody>
            {(list.data?.data ?? []).flatMap((a) => {
              const dispatch = settings.data && dispatchOf(settings.data, a.id);
              const rows = [
                <tr key={a.id}>
                  <td>{a.name}</td>
                  <td>{a.id}</td>
                  <td>{a.currency}</td>
                  <td>{zoneText(a)}</td>
                  <td>{a.origin ? `${a.origin.lat}, ${a.origin.lng}` : '—'}</td>
                  <td>{pricingText(a.pricing)}</td>
                  <td data-auto-dispatch={dispatch?.own ?? ''}>{dispatch ? dispatchText(dispatch) : '—'}</td>
                  <td className="buttons">
                    <button
                      type="button"
                      aria-expanded={editing === a.id}
                      aria-label={`Edit ${a.name}`}
                      onClick={() => {
                        setSaved('');
                        setEditing(editing === a.id ? null : a.id);
                      }}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      aria-expanded={keysOf === a.id}
                      aria-label={`API keys of ${a.name}`}
                      onClick={() => setKeysOf(keysOf === a.id ? null : a.id)}
                    >
                      API keys
                    </button>
                  </td>
                </tr>,
              ];
              if (keysOf === a.id) {
                rows.push(
                  <tr key={`${a.id}-keys`}>
                    <td colSpan={8}>
                      <KeyManager label={`API keys of ${a.name}`} account={a.id} />
                    </td>
                  </tr>,
                );
              }
              if (editing === a.id) {
                rows.push(
                  <tr key={`${a.id}-edit`}>
                    <td colSpan={8}>
                      <AccountForm
                        initial={a}
                        dispatch={dispatch}
                        onSaved={() => {
                          setSaved('Saved.');
                          setEditing(null);
                          void list.reload();
                          void settings.reload();
                        }}
                      />
                    </td>
                  </tr>,
                );
              }
              return rows;
            })}
          </tbody>
        </table>
      </div>
      {list.data && list.data.data.length === 0 && (
        <p className="muted">No merchant account yet. Create one above: its test and live keys are shown once.</p>
      )}
    </section>
  );
}
