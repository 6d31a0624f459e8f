import { useEffect, useRef, useState } from 'react';
import { DATE_FORMAT_HINT, SKIP_DUPLICATES_HINT } from '../../../../src/shared/import-messages.js';
import { ApiFailure, browserZone, unwrap, whenIn } from '../../shared/api';
import { plural } from '../../shared/text';
import { streamable, useLive } from '../live';
import { useSession } from '../session';
import { ErrorNote, StatusBadge, TableHead, useLoad } from '../ui';
import { type OrderImport, saveBlob, XLSX_TYPE } from './files';

const DONE: readonly OrderImport['status'][] = ['succeeded', 'failed'];

function percent(imp: Pick<OrderImport, 'processed_rows' | 'total_rows' | 'status'>): number {
  if (imp.status === 'succeeded') return 100;
  if (imp.total_rows <= 0) return 0;
  return Math.min(100, Math.round((imp.processed_rows / imp.total_rows) * 100));
}

function Progress({ imp }: { imp: OrderImport }) {
  const pct = percent(imp);
  return (
    <div className="import-progress">
      <div
        className="bar"
        role="progressbar"
        aria-label="Import progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        aria-valuetext={`${imp.processed_rows} of ${imp.total_rows} rows`}
      >
        <span style={{ width: `${pct}%` }} />
      </div>
      <span className="muted small">
        {imp.processed_rows} of {imp.total_rows} rows · {pct}%
      </span>
    </div>
  );
}

function Counts({ imp }: { imp: OrderImport }) {
  // The user's zone (the carrier's, or a merchant's account's), named: not the browser's.
  const tz = useSession().me?.timezone ?? browserZone();
  return (
    <dl className="fields import-counts">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={imp.status} />
      </dd>
      <dt>Rows in the file</dt>
      <dd data-count="total">{imp.total_rows}</dd>
      <dt>Rows processed</dt>
      <dd data-count="processed">{imp.processed_rows}</dd>
      <dt>Orders created</dt>
      <dd data-count="created">{imp.created}</dd>
      <dt>Rows rejected</dt>
      <dd data-count="failed">{imp.failed}</dd>
      <dt>Orders skipped</dt>
      <dd data-count="skipped">{imp.skipped}</dd>
      <dt>Mode</dt>
      <dd>{imp.mode === 'all_or_nothing' ? 'All or nothing' : 'Valid rows'}</dd>
      <dt>Orders already imported</dt>
      <dd>{imp.duplicates === 'skip' ? 'Skip' : 'Create again'}</dd>
      <dt>Uploaded</dt>
      <dd>{whenIn(imp.created_at, tz)}</dd>
      <dt>Finished</dt>
      <dd>{whenIn(imp.completed_at, tz)}</dd>
    </dl>
  );
}

/** An import shows at most this many errors (its `errors`; failed_rows.csv has every one), and as many warnings. */
const SHOWN_ERRORS = 1000;

/**
 * A row's message as the console says it. The API's names its query parameters ("…or upload again
 * with ?date_format=DMY or ?date_format=MDY.", "upload with duplicates=skip"), right for API users
 * (docs/imports.md), but in the console those choices are the upload form's "Dates like
 * 01/02/2026" and "Skip orders already imported": say that. The API's text, code and
 * failed_rows.csv stay as they are.
 *
 * Picked by `code` and `param`; the part replaced is found by the text the server writes it with
 * (src/shared/import-messages.ts, one place for both), since the rest of the message (the cell,
 * the id, the order) is kept and is in the message alone.
 */
function consoleMessage(line: OrderImport['errors'][number]): string {
  const { code, param, message } = line;
  if (code === 'parameter_invalid' && param === 'requested_date' && message.endsWith(DATE_FORMAT_HINT)) {
    return `${message.slice(0, -DATE_FORMAT_HINT.length)}pick Day/month/year or Month/day/year under “Dates like 01/02/2026” in the upload form on Imports, and upload the file again.`;
  }
  if (code === 'duplicate_external_order_id') {
    return message.replace(
      SKIP_DUPLICATES_HINT,
      '(tick “Skip orders already imported” in the upload form on Imports to leave such orders out)',
    );
  }
  return message;
}

/** The rows of an import's errors or warnings: a row may have several, some without a field. */
function RowLines({ lines, label, className }: { lines: OrderImport['errors']; label: string; className: string }) {
  return (
    <div className="table-wrap">
      <table className={`table ${className}`} aria-labelledby={label}>
        <TableHead columns={['Row', 'Column', 'Field', 'Code', 'Message']} />
        <tbody>
          {lines.map((e, i) => (
            // A row may have several lines, some without a field: its place in the list is the key.
            // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed once the import is done
            <tr key={i}>
              <td>{e.row}</td>
              <td>{e.column ?? '—'}</td>
              <td>
                <code>{e.param ?? '—'}</code>
              </td>
              <td>
                <code>{e.code}</code>
              </td>
              <td>{consoleMessage(e)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One import: progress (the stream's `order_import` events, or polling), counts, row errors. */
export function ImportPage({ id, account }: { id: string; account?: string }) {
  const session = useSession();
  const { client } = session;
  const imp = useLoad(
    () => unwrap(client.GET('/v1/order_imports/{id}', { params: { path: { id }, query: { account } } })),
    [id, account],
  );
  const [downloadError, setDownloadError] = useState<unknown>(null);
  // Back to the imports of the same merchant: without it, a carrier's user was asked to pick it again.
  const back = account ? `#/imports?account=${encodeURIComponent(account)}` : '#/imports';
  const data = imp.data;
  const done = data ? DONE.includes(data.status) : false;
  const found = !(imp.error instanceof ApiFailure && imp.error.status === 404);
  const reload = useRef(imp.reload);
  reload.current = imp.reload;
  const setData = imp.setData;

  // Progress: the stream when the session has one (events move the bar at once, and its first
  // open or a reset reads the import again), and a poll as a safety net (a stream opened after the
  // import ended, or no stream at all). A hidden tab holds no stream, and the poll carries on.
  const following = !done && found;
  const live = streamable(session);
  const read = () => void reload.current();
  useLive(following, live, {
    orderImport: (p) => {
      if (p.id !== id) return;
      setData((cur) =>
        cur
          ? {
              ...cur,
              processed_rows: p.processed_rows ?? cur.processed_rows,
              total_rows: p.total_rows ?? cur.total_rows,
            }
          : cur,
      );
      // The counts and errors are on the import itself.
      read();
    },
    opened: read,
    reset: read,
  });
  useEffect(() => {
    if (!following) return;
    const timer = setInterval(() => void reload.current(), live ? 3000 : 1000);
    return () => clearInterval(timer);
  }, [following, live]);

  async function downloadFailed() {
    setDownloadError(null);
    try {
      const blob = await unwrap(
        client.GET('/v1/order_imports/{id}/failed_rows.csv', {
          params: { path: { id }, query: { account } },
          parseAs: 'blob',
        }),
      );
      saveBlob(blob as Blob, `${id}-failed-rows.csv`);
    } catch (e) {
      setDownloadError(e);
    }
  }

  if (!found) {
    return (
      <section aria-labelledby="imp-title">
        <h1 id="imp-title">Import not found</h1>
        <p>There is no import {id} in this account and environment.</p>
        <p>
          <a href={back}>← Imports</a>
        </p>
      </section>
    );
  }
  if (!data) return imp.error ? <ErrorNote error={imp.error} /> : <p className="muted">Loading…</p>;
  return (
    <article aria-labelledby="imp-title">
      <p>
        <a href={back}>← Imports</a>
      </p>
      <h1 id="imp-title" className="import-title">
        Import {data.id}
      </h1>
      <p className="muted small">
        {data.content_type === XLSX_TYPE ? 'Excel workbook' : 'CSV'} · {data.size.toLocaleString()} bytes
        {data.livemode ? ' · live' : ' · test'}
      </p>
      <Progress imp={data} />
      <p role="status" className="import-state">
        {data.status === 'queued' && 'Waiting to start…'}
        {data.status === 'processing' && 'Importing…'}
        {data.status === 'succeeded' &&
          `Import finished: ${plural(data.created, 'order')} created, ${plural(data.failed, 'row')} rejected${
            data.skipped > 0 ? `, ${plural(data.skipped, 'order')} skipped (already imported)` : ''
          }.`}
        {data.status === 'failed' && `Import failed${data.failure_message ? `: ${data.failure_message}` : '.'}`}
      </p>
      <ErrorNote error={imp.error} />
      <Counts imp={data} />
      {data.failed > 0 && (
        <>
          <h2 id="imp-errors">Rejected rows</h2>
          <div className="buttons">
            <button type="button" onClick={() => void downloadFailed()}>
              Download failed rows
            </button>
          </div>
          <ErrorNote error={downloadError} />
          <p className="muted small">
            The rejected rows as uploaded, with an <code>error</code> column: fix the cells and upload the file again.
            {data.errors.length >= SHOWN_ERRORS &&
              ` The table shows the first ${data.errors.length} errors; the file has all.`}
          </p>
          <RowLines lines={data.errors} label="imp-errors" className="import-errors" />
        </>
      )}
      {data.warnings.length > 0 && (
        <>
          <h2 id="imp-warnings">Warnings</h2>
          <p className="muted small">
            Nothing was rejected for these: check that the orders are what you meant.
            {data.warnings.length >= SHOWN_ERRORS && ` The table shows the first ${data.warnings.length}.`}
          </p>
          <RowLines lines={data.warnings} label="imp-warnings" className="import-warnings" />
        </>
      )}
      {done && data.created > 0 && (
        <p>
          {/* Every day, not the board's default of today: the rows may be due on any day. The carrier
              sees the merchant's orders; a merchant sees only its own anyway. */}
          <a href={account ? `#/board?day=all&account=${encodeURIComponent(account)}` : '#/board?day=all'}>
            See the orders
          </a>
        </p>
      )}
    </article>
  );
}
