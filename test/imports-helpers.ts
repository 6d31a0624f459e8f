import type { Kysely } from 'kysely';
import { pino } from 'pino';
import { expect } from 'vitest';
import writeXlsxFile from 'write-excel-file/node';
import { ImportRunner, type ImportRunnerOptions } from '../src/features/imports/runner.js';
import { type Engine, openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import type { DB } from '../src/shared/db/schema.js';
import { client, freshDatabaseUrl, type Res, type TestApp } from './helpers.js';

export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** CSV text from rows of cells (quoted where needed). */
export function csv(rows: (string | number)[][], delimiter = ','): string {
  const q = (v: string | number) => {
    const s = String(v);
    return s.includes(delimiter) || s.includes('"') || s.includes('\n') ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return `${rows.map((r) => r.map(q).join(delimiter)).join('\r\n')}\r\n`;
}

export async function xlsx(rows: unknown[][]): Promise<Buffer> {
  return writeXlsxFile(rows as never).toBuffer();
}

export function upload(t: TestApp, key: string, body: string | Buffer, type = 'text/csv', qs = ''): Promise<Res> {
  return client(t.app, key)('POST', `/v1/order_imports${qs ? `?${qs}` : ''}`, body, { 'content-type': type });
}

/** Runs every pending import to the end, as the background runner of `ruta serve` would. */
export async function drain(t: Pick<TestApp, 'ctx'>, opts: ImportRunnerOptions = {}): Promise<ImportRunner> {
  const runner = new ImportRunner(t.ctx, pino({ level: 'silent' }), opts);
  while (await runner.tick()) {}
  return runner;
}

/** Uploads, runs the background work as `ruta serve` would, and returns the finished import. */
export async function imported(
  t: TestApp,
  key: string,
  body: string | Buffer,
  type = 'text/csv',
  qs = '',
): Promise<Res['body']> {
  const res = await upload(t, key, body, type, qs);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await drain(t);
  return (await client(t.app, key)('GET', `/v1/order_imports/${res.body.id}`)).body;
}

/** A header and rows of good orders, one item each. */
export const HEADER = [
  'external_order_id',
  'customer_name',
  'customer_phone',
  'address',
  'city',
  'item_description',
  'item_quantity',
];
export const good = (i: number): (string | number)[] => [
  `EXT-${i}`,
  `Cliente ${i}`,
  '+51987654321',
  `Av. Uno ${i}`,
  'Lima',
  'Box',
  1,
];

/**
 * A test of an upgrade: a database of its own migrated up to `to`, holding one finished import
 * (`imp_1` of `acct_1`, with the columns of `extra` too) as the schema then stored it; `check` may
 * add rows, then runs the migrations after `to` with `upgrade` (which returns their names).
 */
export async function withImportBefore(
  engine: Engine,
  to: string,
  extra: Record<string, unknown>,
  check: (db: Kysely<DB>, upgrade: () => Promise<string[]>) => Promise<void>,
): Promise<void> {
  const tdb = await freshDatabaseUrl(engine);
  const database = openDatabase(tdb.url);
  try {
    await migrate(database, { to });
    const at = Date.UTC(2030, 0, 1);
    const db = database.db;
    await db
      .insertInto('accounts')
      .values({ id: 'acct_1', name: 'A', currency: 'PEN', created_at: at } as never)
      .execute();
    await db
      .insertInto('order_imports')
      .values({
        id: 'imp_1',
        account_id: 'acct_1',
        mode: 'test',
        status: 'succeeded',
        import_mode: 'valid_rows',
        content_type: 'text/csv',
        content: Buffer.from('customer_name\n\n'),
        size: 15,
        total_rows: 1,
        created_at: at,
        updated_at: at,
        ...extra,
      } as never)
      .execute();
    await check(db, () => migrate(database));
  } finally {
    await database.close();
    await tdb.drop();
  }
}
