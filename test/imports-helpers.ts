import { pino } from 'pino';
import { expect } from 'vitest';
import writeXlsxFile from 'write-excel-file/node';
import { ImportRunner, type ImportRunnerOptions } from '../src/features/imports/runner.js';
import { client, type Res, type TestApp } from './helpers.js';

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
