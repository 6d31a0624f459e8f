import { runLoad } from '../load.js';
import { seedOrders } from '../seed.js';
import { api, type Ctx, checked, round, Skip } from './context.js';

export interface ListResult {
  orders: number;
  first_p50_ms: number;
  deep_p50_ms: number;
  ratio: number;
}

/**
 * Latency, not throughput: one connection, so p50 is the server's time for one page with no
 * queueing. The deep page rotates over 20 cursors near the oldest end of the list.
 */
export async function listScenario(ctx: Ctx): Promise<ListResult> {
  const n = ctx.quick ? 200_000 : 1_000_000;
  // Requests left queued by the previous scenario's load must finish before the seeder takes the write lock.
  await new Promise((r) => setTimeout(r, 2000));
  const seeded = await seedOrders(ctx.kind, ctx.dbUrl, ctx.accountId, n);
  ctx.log(`  seeded ${n} orders in ${round(seeded.seconds, 1)} s`);
  const deepPath = (id: string) => `/v1/orders?limit=20&starting_after=${id}`;
  const [firstDeep] = seeded.deepIds;
  if (firstDeep === undefined) throw new Skip('the seeder returned no deep cursors');
  const probe = await api(ctx, ctx.merchantKey, 'GET', deepPath(firstDeep));
  if (probe.status !== 200 || probe.json.data?.length !== 20) {
    throw new Skip(`deep page probe answered ${probe.status} with ${probe.json.data?.length ?? 0} orders`);
  }
  const seconds = ctx.quick ? 4 : 10;
  const load = (paths: string[]) =>
    runLoad(ctx.loader, {
      base: ctx.server.base,
      headers: { Authorization: `Bearer ${ctx.merchantKey}` },
      requests: paths.map((path) => ({ method: 'GET' as const, path })),
      connections: 1,
      seconds,
    });
  const first = checked('first page', await load(['/v1/orders?limit=20']));
  const deep = checked('deep page', await load(seeded.deepIds.map(deepPath)));
  const total = await countOrders(ctx);
  return {
    orders: total,
    first_p50_ms: round(first.p50_ms),
    deep_p50_ms: round(deep.p50_ms),
    ratio: round(deep.p50_ms / first.p50_ms, 2),
  };
}

/** Seeded plus API-created orders: the table size the pages were read from. */
async function countOrders(ctx: Ctx): Promise<number> {
  if (ctx.kind === 'sqlite') {
    const SQLite = (await import('../../src/shared/db/sqlite-driver.js')).loadSqlite();
    const db = new SQLite(ctx.dbUrl.slice('sqlite:'.length), { readonly: true });
    const { n } = db.prepare('SELECT count(*) AS n FROM orders').get() as { n: number };
    db.close();
    return n;
  }
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: ctx.dbUrl });
  await c.connect();
  const { rows } = await c.query('SELECT count(*)::int AS n FROM orders');
  await c.end();
  return rows[0].n;
}
