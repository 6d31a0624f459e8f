import { extname } from 'node:path';
import {
  DATE_FORMATS,
  type DateFormat,
  IMPORT_MODES,
  type ImportMode,
  type ImportType,
} from '../shared/db/tables/order_imports.js';
import { type Command, type Parsed, UsageError, withContext } from './command.js';
import type { ImportPlan } from './orders-import-run.js';

// `ruta orders import FILE`: the same import as POST /v1/order_imports, run in this process with a
// progress bar (or, when a server's runner claims it first, followed until it finishes).

const USAGE = `  orders import FILE --account ID --mode test|live [--import-mode valid_rows|all_or_nothing]
               [--date-format DMY|MDY|ISO] [--skip-duplicates] [--json]
                                          import orders from a .csv or .xlsx file (docs/imports.md);
                                          --skip-duplicates leaves out orders whose external_order_id
                                          the account already has; exit 0: every row imported (or
                                          skipped), 3: some rows rejected (listed; fix them with
                                          failed_rows.csv), 1: nothing imported`;

const TYPES: Record<string, ImportType> = {
  '.csv': 'text/csv',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export const ordersImportCommand: Command = {
  name: 'orders import',
  usage: USAGE,
  options: {
    account: { type: 'string' },
    mode: { type: 'string' },
    'import-mode': { type: 'string' },
    'date-format': { type: 'string' },
    'skip-duplicates': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  args: ['FILE'],
  plan(parsed) {
    const plan = planImport(parsed);
    // The import itself is loaded only to run one: every other command starts without it.
    return () => withContext(async (ctx) => (await import('./orders-import-run.js')).ordersImport(ctx, plan));
  },
};

/** Checks the arguments before anything is read or opened. */
export function planImport({ values, args: [file] }: Parsed): ImportPlan {
  const usage = (msg: string) => new UsageError(msg);
  if (!file) throw usage('orders import needs a FILE (.csv or .xlsx)');
  const type = TYPES[extname(file).toLowerCase()];
  if (!type) throw usage('FILE must end in .csv or .xlsx');
  if (typeof values.account !== 'string') throw usage('--account is required');
  const mode = values.mode;
  if (mode !== 'test' && mode !== 'live') throw usage('--mode must be test or live');
  const importMode = (values['import-mode'] ?? 'valid_rows') as ImportMode;
  if (!IMPORT_MODES.includes(importMode)) throw usage('--import-mode must be valid_rows or all_or_nothing');
  const dateFormat = (values['date-format'] as string | undefined)?.toUpperCase() as DateFormat | undefined;
  if (dateFormat !== undefined && !DATE_FORMATS.includes(dateFormat))
    throw usage('--date-format must be DMY, MDY or ISO');
  const duplicates = values['skip-duplicates'] ? 'skip' : 'create';
  return { file, type, account: values.account, mode, importMode, duplicates, dateFormat, json: Boolean(values.json) };
}
