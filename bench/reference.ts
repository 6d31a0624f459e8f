/**
 * The create scenario's yardstick: a bare node:http server that parses the same JSON and writes the
 * same three rows (order, timeline entry, event) in one transaction, with the same engine and
 * durability settings as Ruta, and nothing else: no framework, validation, auth or pricing.
 * Run as its own process: `node --import tsx bench/reference.ts` with DATABASE_URL, PORT, HOST, BENCH_ACCOUNT_ID.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { loadSqlite } from '../src/shared/db/sqlite-driver.js';
import { newId, newTrackingCode } from '../src/shared/ids.js';

const url = process.env.DATABASE_URL!;
const accountId = process.env.BENCH_ACCOUNT_ID!;

const COLS = [
  'id',
  'account_id',
  'mode',
  'tracking_code',
  'external_order_id',
  'source',
  'status',
  'customer',
  'delivery_address',
  'items',
  'requested_date',
  'time_window',
  'priority',
  'is_urgent',
  'requires_signature',
  'requires_photo',
  'cash_on_delivery',
  'shipping_cost',
  'currency',
  'weight_kg',
  'packages',
  'customer_notes',
  'metadata',
  'courier_id',
  'courier_name',
  'route_id',
  'cancellation_reason',
  'failure_reason',
  'attempts',
  'event_seq',
  'created_at',
  'updated_at',
] as const;

type Row = unknown[];

function rows(body: any): { order: Row; timeline: Row; event: Row; response: string } {
  const now = Date.now();
  const id = newId('ord', now);
  const items = body.items ?? [];
  const weight = items.reduce((s: number, it: any) => s + (it.weight_kg ?? 0) * (it.quantity ?? 1), 0);
  const packages = items.reduce((s: number, it: any) => s + (it.quantity ?? 1), 0) || 1;
  const cod = Math.round((body.cash_on_delivery ?? 0) * 100);
  const tracking = newTrackingCode();
  const order = [
    id,
    accountId,
    'test',
    tracking,
    body.external_order_id ?? null,
    body.source ?? null,
    'pending',
    JSON.stringify(body.customer),
    JSON.stringify(body.delivery_address),
    JSON.stringify(items),
    null,
    null,
    body.priority ?? 1,
    body.is_urgent ? 1 : 0,
    1,
    0,
    cod,
    500,
    'USD',
    weight,
    packages,
    body.customer_notes ?? null,
    JSON.stringify(body.metadata ?? {}),
    null,
    null,
    null,
    null,
    null,
    0,
    1,
    now,
    now,
  ];
  const evtId = newId('evt', now);
  const payload = JSON.stringify({
    id: evtId,
    object: 'event',
    event: 'order.created',
    created_at: new Date(now).toISOString(),
    livemode: false,
    api_version: '2025-07-01',
    data: { id, object: 'order', external_order_id: body.external_order_id ?? null, tracking_code: tracking },
  });
  const response = JSON.stringify({ id, object: 'order', tracking_code: tracking, status: 'pending', ...body });
  return {
    order,
    timeline: [id, 'pending', now, null, null],
    event: [evtId, accountId, 'test', 'order.created', id, payload, now],
    response,
  };
}

const orderSql = (ph: (i: number) => string) =>
  `INSERT INTO orders (${COLS.join(',')}) VALUES (${COLS.map((_, i) => ph(i + 1)).join(',')})`;
const TIMELINE = 'INSERT INTO order_timeline (order_id, status, occurred_at, lat, lng) VALUES';
const EVENT = 'INSERT INTO events (id, account_id, mode, type, order_id, payload, created_at) VALUES';

function sqliteWriter(): (r: ReturnType<typeof rows>) => Promise<void> {
  const SQLite = loadSqlite();
  const db = new SQLite(url.slice('sqlite:'.length));
  // The same pragmas as src/shared/db/index.ts.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  const o = db.prepare(orderSql(() => '?'));
  const t = db.prepare(`${TIMELINE} (?, ?, ?, ?, ?)`);
  const e = db.prepare(`${EVENT} (?, ?, ?, ?, ?, ?, ?)`);
  const tx = db.transaction((r: ReturnType<typeof rows>) => {
    o.run(r.order);
    t.run(r.timeline);
    e.run(r.event);
  });
  return async (r) => tx(r);
}

function pgWriter(): (r: ReturnType<typeof rows>) => Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  const o = orderSql((i) => `$${i}`);
  return async (r) => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(o, r.order);
      await c.query(`${TIMELINE} ($1, $2, $3, $4, $5)`, r.timeline);
      await c.query(`${EVENT} ($1, $2, $3, $4, $5, $6, $7)`, r.event);
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  };
}

const write = url.startsWith('sqlite:') ? sqliteWriter() : pgWriter();

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'GET') return send(res, 200, '{"status":"ok"}');
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const r = rows(JSON.parse(Buffer.concat(chunks).toString('utf8')));
  await write(r);
  send(res, 201, r.response);
}

createServer((req, res) => {
  handle(req, res).catch((err) => send(res, 500, JSON.stringify({ error: String(err) })));
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
