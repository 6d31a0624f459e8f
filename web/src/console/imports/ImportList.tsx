import { useState } from 'react';
import { browserZone, unwrap, whenIn } from '../../shared/api';
import { go } from '../router';
import { useSession } from '../session';
import { ErrorNote, StatusBadge, TableHead, useLoad } from '../ui';
import { type OrderImport, saveBlob } from './files';
import { UploadForm } from './UploadForm';

/** `account`: the merchant a carrier user imports for (undefined for merchant users). */
export function ImportList({ account }: { account?: string }) {
  const { client, me } = useSession();
  const tz = me?.timezone ?? browserZone();
  const [templateError, setTemplateError] = useState<unknown>(null);
  const suffix = account ? `?account=${encodeURIComponent(account)}` : '';
  // Each import carries up to 1000 row errors: a page of 20, and older ones on demand.
  const list = useLoad(
    () => unwrap(client.GET('/v1/order_imports', { params: { query: { limit: 20, account } } })),
    [account],
  );
  const [older, setOlder] = useState<{ data: OrderImport[]; has_more: boolean } | null>(null);
  const [olderError, setOlderError] = useState<unknown>(null);

  async function loadOlder() {
    const shown = [...(list.data?.data ?? []), ...(older?.data ?? [])];
    const last = shown[shown.length - 1];
    if (!last) return;
    setOlderError(null);
    try {
      const page = await unwrap(
        client.GET('/v1/order_imports', { params: { query: { limit: 20, starting_after: last.id, account } } }),
      );
      setOlder({ data: [...(older?.data ?? []), ...page.data], has_more: page.has_more });
    } catch (e) {
      setOlderError(e);
    }
  }

  async function template(kind: 'csv' | 'xlsx') {
    setTemplateError(null);
    try {
      const blob =
        kind === 'csv'
          ? await unwrap(client.GET('/v1/order_imports/template.csv', { parseAs: 'blob' }))
          : await unwrap(client.GET('/v1/order_imports/template.xlsx', { parseAs: 'blob' }));
      saveBlob(blob as Blob, `ruta-orders-template.${kind}`);
    } catch (e) {
      setTemplateError(e);
    }
  }

  const imports = [...(list.data?.data ?? []), ...(older?.data ?? [])];
  const hasMore = older ? older.has_more : (list.data?.has_more ?? false);
  return (
    <section aria-labelledby="imports-title">
      <h1 id="imports-title">Imports</h1>
      <p>
        Create orders in bulk from a spreadsheet: one row per order, or one row per item with the same{' '}
        <code>external_order_id</code> on consecutive rows. Valid rows become orders; rejected rows come back with the
        reason.
      </p>
      <div className="buttons">
        <button type="button" onClick={() => void template('csv')}>
          Download CSV template
        </button>
        <button type="button" onClick={() => void template('xlsx')}>
          Download Excel template
        </button>
      </div>
      <ErrorNote error={templateError} />
      <UploadForm account={account} onUploaded={(imp) => go(`imports/${imp.id}${suffix}`)} />
      <h2 id="past-imports">Past imports</h2>
      <ErrorNote error={list.error} />
      {list.data && imports.length === 0 && <p className="muted">No imports yet.</p>}
      {imports.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-labelledby="past-imports">
            <TableHead columns={['Import', 'Uploaded', 'Status', 'Rows', 'Created', 'Rejected', 'Skipped']} />
            <tbody>
              {imports.map((i) => (
                <tr key={i.id}>
                  <td>
                    <a href={`#/imports/${i.id}${suffix}`}>{i.id}</a>
                  </td>
                  <td>{whenIn(i.created_at, tz)}</td>
                  <td>
                    <StatusBadge status={i.status} />
                  </td>
                  <td>{i.total_rows}</td>
                  <td>{i.created}</td>
                  <td>{i.failed}</td>
                  <td>{i.skipped}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {hasMore && (
        <p>
          <button type="button" onClick={() => void loadOlder()}>
            Show older imports
          </button>
        </p>
      )}
      <ErrorNote error={olderError} />
    </section>
  );
}
