import http from 'node:http';
import { cli } from '../env.js';
import { type Ctx, checked, percentile, round } from './context.js';
import { createLoad } from './create.js';

export interface StreamResult {
  streams: number;
  /** Order events received per second, summed over every open stream, under the create load. */
  delivered_per_s: number;
  /** Orders created per second meanwhile (each one is an event for every stream). */
  created_per_s: number;
  /** Event created_at (server, at commit) to arrival at a client with one stream open, sequential creates. */
  commit_to_client_p50_ms: number;
  commit_to_client_p99_ms: number;
}

const STREAMS = 100;
const PER_KEY = 10;

interface Client {
  close(): void;
  /** Order events received so far. */
  count: number;
  onOrder?: (envelope: { data: { id: string }; created_at: string }) => void;
}

function connect(base: string, key: string): Promise<Client> {
  const url = new URL('/v1/stream', base);
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      const c: Client = { close: () => req.destroy(), count: 0 };
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let at = buf.indexOf('\n\n');
        while (at !== -1) {
          const block = buf.slice(0, at);
          buf = buf.slice(at + 2);
          at = buf.indexOf('\n\n');
          if (!block.includes('event: order\n')) continue;
          c.count++;
          if (c.onOrder) c.onOrder(JSON.parse(block.slice(block.indexOf('data: ') + 6)));
        }
      });
      resolve(c);
    });
    req.on('error', reject);
  });
}

/**
 * SSE fan-out: 100 streams (10 operator keys × 10, the per-key cap) follow the create load, and
 * every order event is counted at every stream. Then, with one stream open and no other load,
 * orders are created one at a time and each event's created_at is compared with its arrival
 * (same machine, same clock).
 */
export async function streamScenario(ctx: Ctx): Promise<StreamResult> {
  const keys = Array.from(
    { length: STREAMS / PER_KEY },
    () => cli<{ secret: string }>(ctx.dbUrl, ['keys', 'create', '--operator', '--mode', 'test']).secret,
  );
  const clients = await Promise.all(
    Array.from({ length: STREAMS }, (_, i) => connect(ctx.server.base, keys[Math.floor(i / PER_KEY)]!)),
  );
  let delivered = 0;
  let created = 0;
  try {
    const seconds = ctx.quick ? 5 : 10;
    const before = clients.reduce((n, c) => n + c.count, 0);
    const t0 = performance.now();
    const load = checked(
      'stream fan-out create load',
      await createLoad(ctx.loader, ctx.server.base, ctx.merchantKey, seconds),
    );
    // Events still in flight when the load stops are counted if they arrive within a second.
    await new Promise((r) => setTimeout(r, 1000));
    const elapsed = (performance.now() - t0) / 1000;
    delivered = (clients.reduce((n, c) => n + c.count, 0) - before) / elapsed;
    created = load.rps;
  } finally {
    for (const c of clients) c.close();
  }

  const one = await connect(ctx.server.base, keys[0]!);
  const lat: number[] = [];
  try {
    // The event may arrive before the POST's answer does: arrivals are kept by order id.
    const seen = new Map<string, number>();
    const waiting = new Map<string, (ms: number) => void>();
    one.onOrder = (e) => {
      const ms = Date.now() - Date.parse(e.created_at);
      seen.set(e.data.id, ms);
      waiting.get(e.data.id)?.(ms);
    };
    const n = ctx.quick ? 100 : 300;
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${ctx.server.base}/v1/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.merchantKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...BODY, external_order_id: `SSE-${i}` }),
      });
      const order = (await res.json()) as { id: string };
      const known = seen.get(order.id);
      const arrived =
        known !== undefined ? Promise.resolve(known) : new Promise<number>((r) => waiting.set(order.id, r));
      lat.push(await Promise.race([arrived, new Promise<number>((r) => setTimeout(() => r(Number.NaN), 5000))]));
    }
  } finally {
    one.close();
  }
  const sorted = lat.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return {
    streams: STREAMS,
    delivered_per_s: round(delivered, 0),
    created_per_s: round(created, 0),
    commit_to_client_p50_ms: round(percentile(sorted, 50)),
    commit_to_client_p99_ms: round(percentile(sorted, 99)),
  };
}

const BODY = {
  source: 'api',
  customer: { name: 'Ana Torres', phone: '+51987654321' },
  delivery_address: { address: 'Av. Larco 123', district: 'Miraflores', city: 'Lima', lat: -12.1211, lng: -77.0297 },
  items: [{ description: 'Shoes', quantity: 1, weight_kg: 1 }],
};
