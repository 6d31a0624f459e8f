/**
 * `npm run bench -- --only reports [--report-orders N] [--db postgres]`: GET /v1/reports/summary
 * over a big orders table (DESIGN §17: one query over 1 M orders answers in < 1 s on either engine).
 * Not in the default run: seeding a million delivered orders takes minutes. Writes
 * bench/results/reports-<db>.json and the query plans to bench/results/reports-<db>-plans.txt.
 *
 * Orders are written straight into the table (indexes dropped and rebuilt around the load, as
 * bench/seed.ts does), spread evenly over the last 100 days, 90 % in the bench account and 10 % in a
 * second one, 20 couriers, 12 districts; 80 % delivered (one in ten at the second attempt, one in
 * seven late, one in three rated by the customer), 5 % failed, 5 % returned, 5 % cancelled, 5 % still
 * pending.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import {
  countsQuery,
  durationsQuery,
  type GroupBy,
  type ReportFilter,
  reading,
} from '../../src/features/money/reports-repo.js';
import { openDatabase } from '../../src/shared/db/index.js';
import { loadSqlite } from '../../src/shared/db/sqlite-driver.js';
import { localDay } from '../../src/shared/local-time.js';
import { cli, ROOT } from '../env.js';
import { type Ctx, percentile, require2xx, round } from './context.js';

const DAY = 86_400_000;
const DAYS = 100;
const DISTRICTS = [
  'Miraflores',
  'San Isidro',
  'Barranco',
  'Surco',
  'La Molina',
  'Lince',
  'Jesús María',
  'Magdalena',
  'San Borja',
  'Pueblo Libre',
  'Breña',
  'Chorrillos',
];
const RUNS = 7;
/** A rated delivery's stars, by i: mostly fives and fours, as customers rate. */
const STARS = [5, 5, 5, 4, 4, 3, 2, 1];

export interface ReportsQueryResult {
  name: string;
  path: string;
  groups: number;
  orders: number;
  p50_ms: number;
  max_ms: number;
}

export interface ReportsResult {
  orders: number;
  seed_s: number;
  queries: ReportsQueryResult[];
  /** The slowest query's median, against the 1 s goal. */
  worst_p50_ms: number;
  plans: string;
}

export interface Seed {
  n: number;
  now: number;
  accounts: [string, string];
  couriers: string[];
}

/** The i-th order's columns, as the API would have left it (the report's columns exactly). */
function row(s: Seed, i: number) {
  const created = s.now - DAYS * DAY + Math.floor((i * DAYS * DAY) / s.n);
  const k = i % 20;
  const status =
    k < 16 ? 'delivered' : k === 16 ? 'failed' : k === 17 ? 'returned' : k === 18 ? 'cancelled' : 'pending';
  const delivered = status === 'delivered';
  return {
    id: `ord_RPT${String(i).padStart(23, '0')}`,
    account: i % 10 === 9 ? s.accounts[1] : s.accounts[0],
    tracking: `R${String(i).padStart(11, '0')}`,
    status,
    address: JSON.stringify({ address: 'Av. Larco 123', district: DISTRICTS[i % DISTRICTS.length], city: 'Lima' }),
    courier: status === 'pending' || status === 'cancelled' ? null : s.couriers[i % s.couriers.length]!,
    attempts: status === 'pending' || status === 'cancelled' ? 0 : delivered && i % 10 === 3 ? 2 : 1,
    onTime: delivered ? (i % 7 === 0 ? 0 : 1) : null,
    created,
    deliveredAt: delivered ? created + (20 + ((i * 37) % 280)) * 60_000 : null,
    rating: delivered && i % 3 === 0 ? STARS[i % STARS.length]! : null,
    day: localDay(created, 'UTC'),
  };
}

const COLS = `id, account_id, mode, tracking_code, status, customer, delivery_address, items, priority, is_urgent,
  requires_signature, requires_photo, cash_on_delivery, shipping_cost, currency, weight_kg, packages, metadata,
  attempts, event_seq, created_at, updated_at, due_at, timezone, due_day, courier_id, on_time, delivered_at,
  feedback_rating`;
const CUSTOMER = JSON.stringify({ name: 'Ana Cliente', phone: '+51999000111' });

export function seedSqlite(file: string, s: Seed): void {
  const db = new (loadSqlite())(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const indexes = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL")
    .all() as { name: string; sql: string }[];
  for (const ix of indexes) db.exec(`DROP INDEX ${ix.name}`);
  const ins = db.prepare(`INSERT INTO orders (${COLS}) VALUES (?, ?, 'test', ?, ?, '${CUSTOMER}', ?, '[]', 1, 0, 0, 0,
    0, 500, 'PEN', 1, 1, '{}', ?, 1, ?, ?, ?, 'UTC', ?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < s.n; i++) {
      const r = row(s, i);
      ins.run(
        r.id,
        r.account,
        r.tracking,
        r.status,
        r.address,
        r.attempts,
        r.created,
        r.created,
        r.created,
        r.day,
        r.courier,
        r.onTime,
        r.deliveredAt,
        r.rating,
      );
    }
  })();
  for (const ix of indexes) db.exec(ix.sql);
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

export async function seedPostgres(url: string, s: Seed): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows: indexes } = await c.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'orders'
         AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
    );
    for (const ix of indexes) await c.query(`DROP INDEX ${ix.indexname}`);
    // Batches of rows built here, so both engines get the very same orders.
    const BATCH = 2000;
    for (let from = 0; from < s.n; from += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, s.n - from) }, (_, k) => row(s, from + k));
      const cols = (f: (r: ReturnType<typeof row>) => unknown) => rows.map(f);
      await c.query(
        `INSERT INTO orders (${COLS})
         SELECT id, account, 'test', tracking, status, $1, address, '[]', 1, 0, 0, 0, 0, 500, 'PEN', 1, 1, '{}',
           attempts, 1, created, created, created, 'UTC', day, courier, on_time, delivered_at, rating
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::bigint[], $9::text[],
           $10::text[], $11::int[], $12::bigint[], $13::int[])
           AS t(id, account, tracking, status, address, attempts, created, day, courier, on_time, delivered_at, rating)`,
        [
          CUSTOMER,
          cols((r) => r.id),
          cols((r) => r.account),
          cols((r) => r.tracking),
          cols((r) => r.status),
          cols((r) => r.address),
          cols((r) => r.attempts),
          cols((r) => r.created),
          cols((r) => r.day),
          cols((r) => r.courier),
          cols((r) => r.onTime),
          cols((r) => r.deliveredAt),
          cols((r) => r.rating),
        ],
      );
    }
    for (const ix of indexes) await c.query(ix.indexdef);
    // What autovacuum does after a bulk load: statistics, and the visibility map an index-only scan needs.
    await c.query('VACUUM ANALYZE orders');
  } finally {
    await c.end();
  }
}

/** The plans of the summary's queries (counts, delivery-time histogram) for one filter and grouping. */
async function plans(ctx: Ctx, cases: [string, ReportFilter, GroupBy | undefined][]): Promise<string> {
  const database = openDatabase(ctx.dbUrl, { poolSize: 1 });
  const out: string[] = [];
  try {
    for (const [name, f, by] of cases) {
      // As the summary runs them: on PostgreSQL, inside reading()'s planner setting.
      await reading(database.db, ctx.kind, async (db) => {
        for (const [what, q] of [
          ['counts', countsQuery(db, ctx.kind, f, by)],
          ['delivery-time histogram', durationsQuery(db, ctx.kind, f, by)],
        ] as const) {
          const c = q.compile();
          // PostgreSQL's plan as run: its times, and the heap fetches an index-only scan still made.
          const explain = ctx.kind === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN (ANALYZE, BUFFERS)';
          const r = await db.executeQuery<Record<string, string>>({ ...c, sql: `${explain} ${c.sql}` });
          const lines = r.rows.map((x) => (ctx.kind === 'sqlite' ? x.detail : x['QUERY PLAN']));
          out.push(`## ${name}: ${what}\n${c.sql}\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
        }
      });
    }
  } finally {
    await database.close();
  }
  return out.join('\n');
}

export async function reportsScenario(ctx: Ctx, n: number): Promise<ReportsResult> {
  const second = cli<{ account: { id: string } }>(ctx.dbUrl, ['accounts', 'create', '--name', 'Bench B']);
  const couriers: string[] = [];
  for (let k = 0; k < 20; k++) {
    couriers.push((await require2xx(ctx, ctx.operatorKey, 'POST', '/v1/couriers', { name: `Courier ${k}` })).id);
  }
  const now = Date.now();
  const seed: Seed = { n, now, accounts: [ctx.accountId, second.account.id], couriers };
  const t0 = performance.now();
  if (ctx.kind === 'sqlite') seedSqlite(ctx.dbUrl.slice('sqlite:'.length), seed);
  else await seedPostgres(ctx.dbUrl, seed);
  const seedS = round((performance.now() - t0) / 1000, 1);
  ctx.log(`  seeded ${n} orders in ${seedS} s`);

  const to = localDay(now, 'UTC');
  const from30 = localDay(now - 29 * DAY, 'UTC');
  const from92 = localDay(now - 91 * DAY, 'UTC');
  const month = `from=${from30}&to=${to}`;
  const cases: [string, string, string][] = [
    ['30 days, totals', ctx.operatorKey, `/v1/reports/summary?${month}`],
    ['30 days by day', ctx.operatorKey, `/v1/reports/summary?${month}&group_by=day`],
    ['30 days by courier', ctx.operatorKey, `/v1/reports/summary?${month}&group_by=courier`],
    ['30 days by merchant', ctx.operatorKey, `/v1/reports/summary?${month}&group_by=merchant`],
    ['30 days by district', ctx.operatorKey, `/v1/reports/summary?${month}&group_by=district`],
    [
      '92 days (the longest period) by day',
      ctx.operatorKey,
      `/v1/reports/summary?from=${from92}&to=${to}&group_by=day`,
    ],
    ['a merchant, 30 days by day', ctx.merchantKey, `/v1/reports/summary?${month}&group_by=day`],
  ];
  const queries: ReportsQueryResult[] = [];
  for (const [name, key, path] of cases) {
    const first = await require2xx(ctx, key, 'GET', path);
    const times: number[] = [];
    for (let k = 0; k < RUNS; k++) {
      const t = performance.now();
      await require2xx(ctx, key, 'GET', path);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const q = {
      name,
      path,
      groups: first.groups.length,
      orders: first.totals.orders,
      p50_ms: round(percentile(times, 50), 1),
      max_ms: round(times.at(-1) ?? Number.NaN, 1),
    };
    ctx.log(`  ${name}: p50 ${q.p50_ms} ms, max ${q.max_ms} ms (${q.orders} orders, ${q.groups} groups)`);
    queries.push(q);
  }

  const month30: ReportFilter = { mode: 'test', from: from30, to };
  const text = await plans(ctx, [
    ['30 days by day', month30, 'day'],
    ['30 days by courier', month30, 'courier'],
    ['92 days by day', { ...month30, from: from92 }, 'day'],
    ['30 days by district', month30, 'district'],
    ['a merchant, 30 days by day', { ...month30, account: ctx.accountId }, 'day'],
  ]);
  const plansFile = join('bench', 'results', `reports-${ctx.kind}-plans.txt`);
  writeFileSync(join(ROOT, plansFile), `# GET /v1/reports/summary over ${n} orders (${ctx.kind})\n\n${text}`);
  const result: ReportsResult = {
    orders: n,
    seed_s: seedS,
    queries,
    worst_p50_ms: Math.max(...queries.map((q) => q.p50_ms)),
    plans: plansFile,
  };
  writeFileSync(join(ROOT, 'bench', 'results', `reports-${ctx.kind}.json`), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
