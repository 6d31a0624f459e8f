import { freePort, ROOT, startProcess } from '../env.js';
import { type Loader, type LoadResult, runLoad } from '../load.js';
import { type Ctx, checked, round } from './context.js';

/** A realistic merchant order: customer, geocoded address, two items, cash on delivery. */
export const ORDER_BODY = {
  external_order_id: 'SHOP-100234',
  source: 'ecommerce',
  customer: { name: 'María Fernanda Quispe', phone: '+51987654321', email: 'maria.quispe@example.com' },
  delivery_address: {
    address: 'Av. José Larco 1232, Dpto 502',
    district: 'Miraflores',
    city: 'Lima',
    department: 'Lima',
    lat: -12.1254,
    lng: -77.0296,
    reference: 'Frente al parque, edificio azul',
  },
  items: [
    { sku: 'TSHIRT-M-BLK', description: 'T-shirt, black, M', quantity: 2, weight_kg: 0.25, declared_value: 39.9 },
    { sku: 'SNEAKER-42', description: 'Running sneakers, size 42', quantity: 1, weight_kg: 1.1, declared_value: 249 },
  ],
  cash_on_delivery: 328.8,
  customer_notes: 'Call on arrival',
  metadata: { channel: 'web', cart: 'c_88231' },
};

const BODY = JSON.stringify(ORDER_BODY);
export const CONNECTIONS = 32;

export function createLoad(loader: Loader, base: string, key: string, seconds: number): Promise<LoadResult> {
  return runLoad(loader, {
    base,
    headers: { Authorization: `Bearer ${key}` },
    requests: [{ method: 'POST', path: '/v1/orders', body: BODY }],
    connections: CONNECTIONS,
    seconds,
  });
}

export interface CreateResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  reference_rps: number;
  ratio: number;
}

/**
 * Ruta and the reference take turns on the same database (never at once), after a warm-up each, in
 * short alternating rounds so that a burst of outside load on a shared machine hits both sides.
 */
export async function createScenario(ctx: Ctx): Promise<CreateResult> {
  const ref = await startProcess({
    name: 'reference',
    args: ['--import', 'tsx', `${ROOT}/bench/reference.ts`],
    env: { DATABASE_URL: ctx.dbUrl, BENCH_ACCOUNT_ID: ctx.accountId },
    port: await freePort(),
  });
  try {
    const seconds = ctx.quick ? 3 : 5;
    const rounds = ctx.quick ? 3 : 5;
    const warm = ctx.quick ? 2 : 5;
    checked('reference warm-up', await createLoad(ctx.loader, ref.base, 'none', warm));
    checked('create warm-up', await createLoad(ctx.loader, ctx.server.base, ctx.merchantKey, warm));
    const refs: LoadResult[] = [];
    const ruta: LoadResult[] = [];
    for (let i = 0; i < rounds; i++) {
      const a = checked('reference', await createLoad(ctx.loader, ref.base, 'none', seconds));
      const b = checked('create', await createLoad(ctx.loader, ctx.server.base, ctx.merchantKey, seconds));
      refs.push(a);
      ruta.push(b);
      ctx.log(`  round ${i + 1}: reference ${round(a.rps, 0)} rps, ruta ${round(b.rps, 0)} rps`);
    }
    // Requests over time across rounds; latency as the median round, so one burst of outside load does not decide it.
    const rate = (rs: LoadResult[]) =>
      rs.reduce((s, r) => s + r.requests, 0) / rs.reduce((s, r) => s + r.requests / r.rps, 0);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    const rps = rate(ruta);
    const reference = rate(refs);
    return {
      rps: round(rps, 0),
      p50_ms: round(median(ruta.map((r) => r.p50_ms))),
      p99_ms: round(median(ruta.map((r) => r.p99_ms))),
      reference_rps: round(reference, 0),
      ratio: round(rps / reference, 3),
    };
  } finally {
    await ref.stop();
  }
}
