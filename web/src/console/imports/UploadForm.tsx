import { type FormEvent, useId, useRef, useState } from 'react';
import { readDateFormatClash } from '../../../../src/shared/import-messages.js';
import { ApiFailure, unwrap } from '../../shared/api';
import { useSession } from '../session';
import { errorsOf, useRequestKey } from '../ui';
import { type OrderImport, XLSX_TYPE } from './files';

type ImportMode = NonNullable<OrderImport['mode']>;
type DateFormat = NonNullable<OrderImport['date_format']>;

/** The server's limit (docs/imports.md); checked here too, so a big file is not sent for nothing. */
const MAX_BYTES = 10 * 1024 * 1024;

const MODES: [ImportMode, string][] = [
  ['valid_rows', 'Create the valid rows, report the others'],
  ['all_or_nothing', 'All or nothing: create nothing if a row is rejected'],
];
const DATE_FORMATS: [DateFormat | '', string][] = [
  ['', 'Unambiguous dates only (ISO, or a day above 12)'],
  ['DMY', 'Day/month/year (31/12/2026)'],
  ['MDY', 'Month/day/year (12/31/2026)'],
  ['ISO', 'ISO only (2026-12-31)'],
];

/**
 * The API's refusal of a date format the file's header contradicts (`parameter_invalid`, `param:
 * "date_format"`) names its query parameter ("Invalid date_format: DMY contradicts the column
 * "fecha (mm/dd/aaaa)", which says MDY. Drop the parameter or change the header."): right for API
 * users, but here the parameter is this form's field. Said in the field's words; any other message
 * as the API gave it. The header and the formats are in the message alone (the error body has no
 * field for them): read back by the function the server writes it with (src/shared/import-messages.ts).
 */
function dateFormatWords(err: unknown, message: string): string {
  const clash =
    err instanceof ApiFailure && err.code === 'parameter_invalid' && err.param === 'date_format'
      ? readDateFormatClash(message)
      : undefined;
  if (!clash) return message;
  const label = (v: string) => DATE_FORMATS.find(([f]) => f === v)?.[1].replace(/ \(.*\)$/, '') ?? v;
  return `The column “${clash.header}” says its dates are ${label(clash.says)}, and this field says ${label(clash.asked)}: pick “${DATE_FORMATS[0]?.[1]}” to go by the column, or change the header.`;
}

/** The Content-Type the API expects, from the file's name: browsers name .csv files inconsistently. */
function contentTypeOf(file: File): string {
  const name = file.name.toLowerCase();
  if (name.endsWith('.xlsx')) return XLSX_TYPE;
  if (name.endsWith('.csv')) return 'text/csv';
  return file.type || 'application/octet-stream';
}

export function UploadForm({ onUploaded, account }: { onUploaded: (imp: OrderImport) => void; account?: string }) {
  const { client } = useSession();
  const ids = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [mode, setMode] = useState<ImportMode>('valid_rows');
  const [dateFormat, setDateFormat] = useState<DateFormat | ''>('');
  const [skipDuplicates, setSkipDuplicates] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  // One key per chosen file and options until an upload succeeds: a retry after a lost answer is
  // not a second import. The file is named by what changes when it is edited or another is chosen.
  const request = useRequestKey();

  function fail(errs: Record<string, string>) {
    setErrors(errs);
    const target = errs.mode !== undefined ? 'mode' : errs.date_format !== undefined ? 'date_format' : 'file';
    document.getElementById(`${ids}-${target}`)?.focus();
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    if (!file) return fail({ file: 'Choose a .csv or .xlsx file.' });
    if (file.size > MAX_BYTES) return fail({ file: 'The file is larger than 10 MiB: split it into several files.' });
    setBusy(true);
    const key = request.keyFor({
      file: [file.name, file.size, file.lastModified],
      mode,
      dateFormat,
      skipDuplicates,
      account,
    });
    try {
      const imp = await unwrap(
        client.POST('/v1/order_imports', {
          params: {
            query: {
              mode,
              account,
              ...(dateFormat ? { date_format: dateFormat } : {}),
              ...(skipDuplicates ? { duplicates: 'skip' as const } : {}),
            },
          },
          body: file as never,
          bodySerializer: () => file,
          headers: { 'Content-Type': contentTypeOf(file), 'Idempotency-Key': key },
        }),
      );
      request.done();
      setFile(null);
      if (fileInput.current) fileInput.current.value = '';
      onUploaded(imp);
    } catch (err) {
      // Errors about the file itself (413, 415, 422 without a param, or naming a column) go next to the file.
      // The API's generic 413/415 messages speak of request bodies and JSON: say it in terms of the file.
      const status = err instanceof ApiFailure ? err.status : 0;
      const errs =
        status === 413
          ? { file: 'The file is larger than 10 MiB: split it into several files.' }
          : status === 415
            ? { file: `${file.name} is neither a CSV nor an .xlsx workbook: choose a .csv or .xlsx file.` }
            : errorsOf(err);
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(errs)) {
        const key = k === 'mode' || k === 'date_format' ? k : 'file';
        const said = key === 'date_format' ? dateFormatWords(err, v) : v;
        out[key] = out[key] ? `${out[key]} ${said}` : said;
      }
      fail(out);
    } finally {
      setBusy(false);
    }
  }

  const describe = (name: string, hint?: string) =>
    [hint, errors[name] ? `${ids}-${name}-err` : undefined].filter(Boolean).join(' ') || undefined;
  const fieldError = (name: string) =>
    errors[name] ? (
      <p className="field-error" id={`${ids}-${name}-err`} role="alert">
        {errors[name]}
      </p>
    ) : null;

  return (
    <form className="import-form" onSubmit={submit} noValidate aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Upload a file</h2>
      <div className={`field${errors.file ? ' has-error' : ''}`}>
        <label htmlFor={`${ids}-file`}>Spreadsheet (.csv or .xlsx) *</label>
        <input
          ref={fileInput}
          id={`${ids}-file`}
          name="file"
          type="file"
          accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
          required
          aria-invalid={errors.file ? true : undefined}
          aria-describedby={describe('file', `${ids}-file-hint`)}
          onChange={(e) => {
            setFile(e.target.files?.[0] ?? null);
            setErrors({});
          }}
        />
        <p className="muted small" id={`${ids}-file-hint`}>
          Row 1 names the columns. UTF-8 CSV (comma or semicolon) or an Excel workbook, up to 10 MiB and 10 000 rows.
        </p>
        {fieldError('file')}
      </div>
      <div className={`field${errors.mode ? ' has-error' : ''}`}>
        <label htmlFor={`${ids}-mode`}>Mode</label>
        <select
          id={`${ids}-mode`}
          name="mode"
          value={mode}
          aria-invalid={errors.mode ? true : undefined}
          aria-describedby={describe('mode')}
          onChange={(e) => {
            setMode(e.target.value as ImportMode);
          }}
        >
          {MODES.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
        {fieldError('mode')}
      </div>
      <div className={`field${errors.date_format ? ' has-error' : ''}`}>
        <label htmlFor={`${ids}-date_format`}>Dates like 01/02/2026</label>
        <select
          id={`${ids}-date_format`}
          name="date_format"
          value={dateFormat}
          aria-invalid={errors.date_format ? true : undefined}
          aria-describedby={describe('date_format')}
          onChange={(e) => {
            setDateFormat(e.target.value as DateFormat | '');
          }}
        >
          {DATE_FORMATS.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
        {fieldError('date_format')}
      </div>
      <div className="field">
        <label className="check">
          <input
            type="checkbox"
            name="duplicates"
            checked={skipDuplicates}
            aria-describedby={`${ids}-duplicates-hint`}
            onChange={(e) => {
              setSkipDuplicates(e.target.checked);
            }}
          />{' '}
          Skip orders already imported
        </label>
        <p className="muted small" id={`${ids}-duplicates-hint`}>
          An order whose <code>external_order_id</code> an order of this account already has is left out. Unticked, it
          is created again, with a warning.
        </p>
      </div>
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Uploading…' : 'Upload'}
      </button>
    </form>
  );
}
