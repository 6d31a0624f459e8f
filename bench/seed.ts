/**
 * Puts N orders straight into the database, bypassing the API, so list_depth can measure a big table
 * in seconds. Rows look like API-created ones (same JSON shapes and sizes) but get no timeline or
 * event rows: listing reads the orders table only.
 */
import pg from 'pg';
import { loadSqlite } from '../src/shared/db/sqlite-driver.js';
import { phoneKey, searchKey } from '../src/shared/db/tables/orders.js';
import { newId, newTrackingCode } from '../src/shared/ids.js';
import type { DbKind } from './env.js';
import { ORDER_BODY } from './scenarios/create.js';

export interface Seeded {
  orders: number;
  /** Ids of orders close to the oldest end of the list, to page from with starting_after. */
  deepIds: string[];
  seconds: number;
}

const STEP_MS = 10;
/** How many of the oldest orders to skip when choosing deep cursors: a page "near" the end, not the end itself. */
const DEEP_OFFSET = 100;

export async function seedOrders(kind: DbKind, url: string, accountId: string, n: number): Promise<Seeded> {
  const t0 = performance.now();
  // Oldest first, ending a minute before now, so orders created later by the API stay newest.
  const base = Date.now() - 60_000 - n * STEP_MS;
  const deepIds = kind === 'sqlite' ? seedSqlite(url, accountId, n, base) : await seedPostgres(url, accountId, n, base);
  return { orders: n, deepIds, seconds: (performance.now() - t0) / 1000 };
}

const json = {
  customer: JSON.stringify(ORDER_BODY.customer),
  address: JSON.stringify(ORDER_BODY.delivery_address),
  items: JSON.stringify(ORDER_BODY.items),
  // The derived columns the API writes with each order (due_at is created_at: no requested date).
  customerKey: searchKey(ORDER_BODY.customer.name),
  phoneKey: phoneKey(ORDER_BODY.customer.phone),
};

function seedSqlite(url: string, accountId: string, n: number, base: number): string[] {
  const SQLite = loadSqlite();
  const db = new SQLite(url.slice('sqlite:'.length));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -262144');
  const ins = db.prepare(`INSERT INTO orders (id, account_id, mode, tracking_code, status, customer, delivery_address,
    items, priority, is_urgent, requires_signature, requires_photo, cash_on_delivery, shipping_cost, currency,
    weight_kg, packages, metadata, attempts, event_seq, created_at, updated_at, due_at, customer_key, phone_key)
    VALUES (?, ?, 'test', ?, 'pending', ?, ?, ?, 1, 0, 1, 0, 4550, 500, 'USD', 3.5, 3, '{}', 0, 1, ?, ?, ?, ?, ?)`);
  const deep: string[] = [];
  // Secondary indexes are dropped and rebuilt around the load: one sort beats a million B-tree inserts.
  const indexes = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL")
    .all() as { name: string; sql: string }[];
  for (const ix of indexes) db.exec(`DROP INDEX ${ix.name}`);
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const at = base + i * STEP_MS;
      const id = newId('ord', at);
      if (i >= DEEP_OFFSET && i < DEEP_OFFSET + 20) deep.push(id);
      ins.run(
        id,
        accountId,
        newTrackingCode(),
        json.customer,
        json.address,
        json.items,
        at,
        at,
        at,
        json.customerKey,
        json.phoneKey,
      );
    }
  })();
  for (const ix of indexes) db.exec(ix.sql);
  // Fold the bulk load into the main file, as a long-running server would have by the time it has 1M rows.
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return deep;
}

async function seedPostgres(url: string, accountId: string, n: number, base: number): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows: indexes } = await c.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'orders'
         AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
    );
    for (const ix of indexes) await c.query(`DROP INDEX ${ix.indexname}`);
    // Ids sort like real ones within the seeded range: fixed-width, time-ordered.
    await c.query(
      `INSERT INTO orders (id, account_id, mode, tracking_code, status, customer, delivery_address, items, priority,
        is_urgent, requires_signature, requires_photo, cash_on_delivery, shipping_cost, currency, weight_kg, packages,
        metadata, attempts, event_seq, created_at, updated_at, due_at, customer_key, phone_key)
       SELECT 'ord_SEED' || lpad(g::text, 22, '0'), $1, 'test', 'S' || lpad(g::text, 11, '0'), 'pending', $2, $3, $4,
        1, 0, 1, 0, 4550, 500, 'USD', 3.5, 3, '{}', 0, 1, $5::bigint + g * ${STEP_MS}, $5::bigint + g * ${STEP_MS},
        $5::bigint + g * ${STEP_MS}, $7, $8
       FROM generate_series(0, $6::int - 1) g`,
      [accountId, json.customer, json.address, json.items, base, n, json.customerKey, json.phoneKey],
    );
    for (const ix of indexes) await c.query(ix.indexdef);
    // What autovacuum would do shortly after a bulk load; without it the planner guesses on an empty table.
    await c.query('ANALYZE orders');
  } finally {
    await c.end();
  }
  return Array.from({ length: 20 }, (_, k) => `ord_SEED${String(DEEP_OFFSET + k).padStart(22, '0')}`);
}
