/**
 * The dispatch board's queries on a big table: GET /v1/orders/counts (a day, all time), the day's
 * first page, the search (list and counts), for an operator and for a merchant, with their plans.
 *
 *   flock /tmp/bench.lock npx tsx bench/board.ts [sqlite|postgres] [orders=1000000]
 *
 * Orders are written straight into the table (indexes dropped and rebuilt around the load, as
 * bench/seed.ts does), spread over 100 days (10 000 a day), 90% in account A and 10% in B; 70% have
 * a requested date the day after their creation; statuses by age, as a carrier's history looks.
 */
import { sql } from 'kysely';
import {
  countOrders,
  countOrdersQuery,
  type ListFilter,
  listOrders,
  listOrdersQuery,
} from '../src/features/orders/list-repo.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { loadSqlite } from '../src/shared/db/sqlite-driver.js';
import { ORDER_STATUSES, phoneKey, searchKey } from '../src/shared/db/tables/orders.js';
import { localDay } from '../src/shared/local-time.js';
import { type DbKind, freshDb, machine } from './env.js';

const kind = (process.argv[2] ?? 'sqlite') as DbKind;
const N = Number(process.argv[3] ?? 1_000_000);
const DAY = 86_400_000;
const FIRST = ['Ana', 'José', 'María', 'Luis', 'Rosa', 'Carlos', 'Lucía', 'Jorge', 'Elena', 'Pedro'];
const NOW = Date.UTC(2026, 10, 25, 15);
const START = NOW - 100 * DAY;

function row(i: number) {
  const created = START + Math.floor((i * 100 * DAY) / N);
  const requested = i % 10 < 7 ? new Date(created + DAY).toISOString() : null;
  const age = NOW - created;
  const s = i % 20;
  const status =
    age > 2 * DAY
      ? s < 17
        ? 'delivered'
        : s === 17
          ? 'failed'
          : s === 18
            ? 'cancelled'
            : 'returned'
      : ORDER_STATUSES[s % 8]!;
  const name = `${FIRST[i % 10]} Cliente ${i}`;
  const phone = `+519${String(i).padStart(8, '0')}`;
  return {
    id: `ord_B${String(i).padStart(24, '0')}`,
    account: i % 10 === 9 ? 'acct_B' : 'acct_A',
    tracking: `T${String(i).padStart(11, '0')}`,
    ext: `SHOP-${i}`,
    status,
    customer: JSON.stringify({ name, phone }),
    requested,
    created,
    due: requested ? Date.parse(requested) : created,
    day: localDay(requested ? Date.parse(requested) : created, 'UTC'),
    key: searchKey(name),
    phone: phoneKey(phone),
  };
}

const db0 = await freshDb(kind);
const database = openDatabase(db0.url, { poolSize: 4 });
try {
  await migrate(database);
  const ctx = createContext(database, loadConfig({ DATABASE_URL: db0.url, RUTA_LOG_LEVEL: 'silent' }));
  const db = ctx.db;
  for (const id of ['acct_A', 'acct_B']) {
    await db
      .insertInto('accounts')
      .values({ id, name: id, currency: 'PEN', pricing: null, origin_lat: null, origin_lng: null, created_at: START })
      .execute();
  }
  const t0 = performance.now();
  const indexes =
    kind === 'sqlite'
      ? (
          await sql<{
            name: string;
            sql: string;
          }>`select name, sql from sqlite_master where type = 'index' and tbl_name = 'orders' and sql is not null`.execute(
            db,
          )
        ).rows
      : (
          await sql<{
            name: string;
            sql: string;
          }>`select indexname as name, indexdef as sql from pg_indexes where tablename = 'orders' and indexname not in (select conname from pg_constraint)`.execute(
            db,
          )
        ).rows;
  for (const ix of indexes) await sql.raw(`drop index ${ix.name}`).execute(db);
  const cols = `id, account_id, mode, tracking_code, external_order_id, source, status, customer, delivery_address, items,
    requested_date, priority, is_urgent, requires_signature, requires_photo, cash_on_delivery, shipping_cost, currency,
    weight_kg, packages, metadata, attempts, event_seq, created_at, updated_at, due_at, customer_key, phone_key, timezone, due_day`;
  if (kind === 'sqlite') {
    const file = db0.url.slice('sqlite:'.length);
    await database.close();
    const raw = new (loadSqlite())(file);
    raw.pragma('journal_mode = WAL');
    const ins =
      raw.prepare(`insert into orders (${cols}) values (?, ?, 'test', ?, ?, 'api', ?, ?, '{"address":"Av. Larco 123"}', '[]',
      ?, 1, 0, 1, 0, 0, 500, 'PEN', 1, 1, '{}', 0, 1, ?, ?, ?, ?, ?, 'UTC', ?)`);
    raw.transaction(() => {
      for (let i = 0; i < N; i++) {
        const r = row(i);
        ins.run(
          r.id,
          r.account,
          r.tracking,
          r.ext,
          r.status,
          r.customer,
          r.requested,
          r.created,
          r.created,
          r.due,
          r.key,
          r.phone,
          r.day,
        );
      }
    })();
    for (const ix of indexes) raw.exec(ix.sql);
    raw.exec('analyze');
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
  } else {
    for (let from = 0; from < N; from += 1500) {
      const rows = Array.from({ length: Math.min(1500, N - from) }, (_, k) => row(from + k));
      await db
        .insertInto('orders')
        .values(
          rows.map((r) => ({
            id: r.id,
            account_id: r.account,
            mode: 'test',
            tracking_code: r.tracking,
            external_order_id: r.ext,
            source: 'api',
            status: r.status as (typeof ORDER_STATUSES)[number],
            customer: r.customer,
            delivery_address: '{"address":"Av. Larco 123"}',
            items: '[]',
            requested_date: r.requested,
            time_window: null,
            priority: 1,
            is_urgent: 0,
            requires_signature: 1,
            requires_photo: 0,
            pin_attempts: 0,
            cash_on_delivery: 0,
            shipping_cost: 500,
            currency: 'PEN',
            weight_kg: 1,
            packages: 1,
            customer_notes: null,
            metadata: '{}',
            courier_id: null,
            courier_name: null,
            route_id: null,
            cancellation_reason: null,
            failure_reason: null,
            attempts: 0,
            event_seq: 1,
            created_at: r.created,
            updated_at: r.created,
            picked_up_at: null,
            delivered_at: null,
            returned_at: null,
            failure_notes: null,
            due_at: r.due,
            customer_key: r.key,
            phone_key: r.phone,
            timezone: 'UTC',
            due_day: r.day,
          })),
        )
        .execute();
    }
    for (const ix of indexes) await sql.raw(ix.sql).execute(db);
    await sql`analyze orders`.execute(db);
  }
  console.log(`seeded ${N} orders in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

  const live = kind === 'sqlite' ? openDatabase(db0.url, { poolSize: 4 }) : database;
  const ldb = live.db;
  const operator = { mode: 'test' as const, accountId: null };
  const merchant = { mode: 'test' as const, accountId: 'acct_A' };
  const today = { dueGte: Date.UTC(2026, 10, 25, 5), dueLt: Date.UTC(2026, 10, 26, 5) };
  const search = (text: string) => ({
    externalOrderId: text,
    nameKey: searchKey(text),
    phoneKey: /^\d{4,}$/.test(text) ? (phoneKey(text) ?? undefined) : undefined,
  });
  const cases: [string, 'count' | 'list', ListFilter][] = [];
  for (const [who, scope] of [
    ['operator', operator],
    ['merchant', merchant],
  ] as const) {
    cases.push(
      [`${who}: counts, today (due)`, 'count', { scope, ...today, limit: 0 }],
      [`${who}: counts, all time`, 'count', { scope, limit: 0 }],
      [`${who}: first page, today (due)`, 'list', { scope, ...today, limit: 100 }],
      [
        `${who}: search "rosa cliente 12" (name prefix)`,
        'list',
        { scope, search: search('rosa cliente 12'), limit: 100 },
      ],
      [`${who}: counts, search "rosa cliente 12"`, 'count', { scope, search: search('rosa cliente 12'), limit: 0 }],
      [`${who}: search "54321" (phone ending)`, 'list', { scope, search: search('54321'), limit: 100 }],
      [`${who}: search "SHOP-777" (external id)`, 'list', { scope, search: search('SHOP-777'), limit: 100 }],
      [`${who}: search "jose" + today, counts`, 'count', { scope, ...today, search: search('jose'), limit: 0 }],
      // The live map and planning read the open orders one status at a time, whatever their day.
      [`${who}: first page, status pending`, 'list', { scope, status: 'pending', limit: 100 }],
      [`${who}: first page, status rescheduled (none)`, 'list', { scope, status: 'rescheduled', limit: 100 }],
    );
  }
  console.log(JSON.stringify({ engine: kind, orders: N, machine: machine() }));
  for (const [name, what, f] of cases) {
    const run = () => (what === 'count' ? countOrders(ldb, f) : listOrders(ldb, f));
    const result = await run();
    const times: number[] = [];
    for (let k = 0; k < 15; k++) {
      const t = performance.now();
      await run();
      times.push(performance.now() - t);
    }
    times.sort((x, y) => x - y);
    const size = result instanceof Map ? [...result.values()].reduce((s, n) => s + n, 0) : result.length;
    const q = (what === 'count' ? countOrdersQuery(ldb, f) : listOrdersQuery(ldb, f)).compile();
    console.log(
      `${name}: median ${times[7]!.toFixed(1)} ms, p90 ${times[13]!.toFixed(1)} ms (${size} ${what === 'count' ? 'counted' : 'rows'})`,
    );
    if (kind === 'sqlite') {
      const r = await live.db.executeQuery<{ detail: string }>({
        ...q,
        sql: `explain query plan ${q.sql}`,
        query: q.query,
      });
      console.log(`  ${r.rows.map((x) => x.detail).join(' | ')}`);
    } else {
      const r = await live.db.executeQuery<{ 'QUERY PLAN': string }>({ ...q, sql: `explain ${q.sql}`, query: q.query });
      console.log(r.rows.map((x) => `  ${x['QUERY PLAN']}`).join('\n'));
    }
  }
  console.log(`load average at end: ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').trim()}`);
  if (live !== database) await live.close();
} finally {
  if (kind === 'postgres') await database.close().catch(() => {});
  await db0.drop();
}
