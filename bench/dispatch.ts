// `npm run bench:dispatch`: dispatch suggestions for a new order among many couriers under way
// (issue #21, DESIGN §16: 50 couriers × 30 stops answer in < 200 ms). In-process: the app over a
// fresh database, requests through Fastify's inject (the HTTP parser aside, the request path of
// `ruta serve`: auth, validation, the service, the database). The app's clock is held at 09:00 UTC
// of a working day.
//
//   npm run bench:dispatch -- [--db sqlite|postgres] [--couriers 50] [--stops 30] [--runs 40] [--pairs]
//
// Prints one JSON object: the setup, then p50/p95/max of GET /v1/orders/{id}/dispatch_suggestions
// (and of POST /v1/orders/{id}/dispatch, on fresh orders), in ms.

import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { createAccount, createKey } from '../src/features/accounts/service.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { type DbKind, freshDb, machine } from './env.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    couriers: { type: 'string', default: '50' },
    stops: { type: 'string', default: '30' },
    runs: { type: 'string', default: '40' },
    // The new orders are pickup-and-delivery pairs (a pickup_address of their own), DESIGN §16.
    pairs: { type: 'boolean', default: false },
  },
});
const COURIERS = Number(values.couriers);
const STOPS = Number(values.stops);
const RUNS = Number(values.runs);
const NINE = Date.parse('2030-03-04T09:00:00Z');

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0) : 0;
};
const round = (n: number) => Math.round(n * 10) / 10;

async function main() {
  const db = await freshDb(values.db as DbKind);
  const config = loadConfig({ ...process.env, DATABASE_URL: db.url, RUTA_LOG_LEVEL: 'warn' });
  const database = openDatabase(config.databaseUrl, { poolSize: 10 });
  await migrate(database);
  const ctx = createContext(database, config, { clock: () => NINE });
  const app = await buildApp(ctx);
  await app.ready();
  try {
    const { keys } = await createAccount(ctx, { name: 'Bench' });
    const op = (await createKey(ctx, { role: 'operator', mode: 'test', accountId: null })).secret;
    const call = async (key: string, method: 'GET' | 'POST', url: string, body?: unknown) => {
      const res = await app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return JSON.parse(res.body);
    };
    // A city 20 km across; each courier works a sector, its stops spread around it.
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const point = (cx: number, cy: number, r: number) => ({ lat: cx + (rnd() - 0.5) * r, lng: cy + (rnd() - 0.5) * r });
    const order = (p: { lat: number; lng: number }) => ({
      customer: { name: 'Ana Torres', phone: '+51987654321' },
      delivery_address: { address: 'Calle 1', city: 'Lima', ...p },
      items: [{ description: 'Box', quantity: 1, weight_kg: 1 }],
    });
    const setupStart = performance.now();
    for (let c = 0; c < COURIERS; c++) {
      const centre = point(-12.1, -77.03, 0.18);
      const courier = await call(op, 'POST', '/v1/couriers', { name: `Courier ${c}` });
      await call(op, 'POST', `/v1/couriers/${courier.id}/location`, centre);
      const ids: string[] = [];
      for (let s = 0; s < STOPS; s++)
        ids.push((await call(keys.test, 'POST', '/v1/orders', order(point(centre.lat, centre.lng, 0.05)))).id);
      await call(op, 'POST', '/v1/routes', { courier_id: courier.id, order_ids: ids, date: '2030-03-04' });
    }
    const setupS = round((performance.now() - setupStart) / 1000);

    const time = async (f: () => Promise<unknown>) => {
      const t0 = performance.now();
      await f();
      return performance.now() - t0;
    };
    const suggest: number[] = [];
    const dispatch: number[] = [];
    let couriersRanked = 0;
    for (let r = 0; r < RUNS + 3; r++) {
      const fresh = order(point(-12.1, -77.03, 0.18));
      const body = values.pairs
        ? { ...fresh, pickup_address: { address: 'Calle 2', city: 'Lima', ...point(-12.1, -77.03, 0.18) } }
        : fresh;
      const n = await call(keys.test, 'POST', '/v1/orders', body);
      const ms = await time(async () => {
        couriersRanked = (await call(op, 'GET', `/v1/orders/${n.id}/dispatch_suggestions`)).data.length;
      });
      // The first few warm up the JIT and the statement cache.
      if (r >= 3) suggest.push(ms);
      if (r >= 3 && r % 4 === 0) dispatch.push(await time(() => call(op, 'POST', `/v1/orders/${n.id}/dispatch`, {})));
    }
    const stats = (xs: number[]) => ({
      runs: xs.length,
      p50: round(pct(xs, 50)),
      p95: round(pct(xs, 95)),
      max: round(Math.max(...xs)),
    });
    console.log(
      JSON.stringify(
        {
          bench: 'dispatch',
          db: values.db,
          pairs: values.pairs,
          machine: machine(),
          couriers: COURIERS,
          stops_per_route: STOPS,
          suggestions_returned: couriersRanked,
          setup_s: setupS,
          suggestions_ms: stats(suggest),
          dispatch_ms: stats(dispatch),
        },
        null,
        2,
      ),
    );
  } finally {
    await app.close();
    await database.close();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
