import { spawn } from 'node:child_process';
import { Agent, createServer, request, type Server } from 'node:http';
import { freePort, ROOT, START_FLAGS, startProcess } from '../env.js';
import { api, type Ctx, percentile, require2xx, round, Skip } from './context.js';
import { ORDER_BODY } from './create.js';

export interface WebhookResult {
  e2e_p50_ms: number;
  e2e_p99_ms: number;
  deliveries_per_s: number;
  reference_per_s: number;
  ratio: number;
}

/** The dispatcher's default concurrency (RUTA_WEBHOOK_CONCURRENCY); the reference loop uses the same. */
const CONCURRENCY = Number(process.env.RUTA_WEBHOOK_CONCURRENCY || 64);

/** The loopback receiver: records when each order.created envelope arrived, and answers 200 at once. */
class Receiver {
  private server!: Server;
  port = 0;
  /** order id → [created_at from the envelope, arrival], both epoch ms. */
  readonly seen = new Map<string, [number, number]>();
  posts = 0;
  sample = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const at = Date.now();
        this.posts++;
        try {
          const text = Buffer.concat(chunks).toString('utf8');
          const env = JSON.parse(text);
          if (env.event === 'order.created' && !this.seen.has(env.data.id)) {
            this.seen.set(env.data.id, [Date.parse(env.created_at), at]);
            if (!this.sample) this.sample = text;
          }
        } catch {}
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
        res.end('{}');
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
  }

  async waitFor(ids: string[], timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const missing = ids.filter((id) => !this.seen.has(id)).length;
      if (missing === 0) return 0;
      if (Date.now() > deadline) return missing;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

function post(agent: Agent, url: string, headers: Record<string, string>, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json' } });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`POST ${url} answered ${res.statusCode}: ${text}`));
        else resolve(text);
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `n` calls of `fn` with `concurrency` in flight. */
async function pool(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

export async function webhookScenario(ctx: Ctx): Promise<WebhookResult> {
  const rx = new Receiver();
  await rx.start();
  let endpointId: string | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  try {
    const endpoint = await require2xx(ctx, ctx.merchantKey, 'POST', '/v1/webhook_endpoints', {
      url: `http://127.0.0.1:${rx.port}/hook`,
      events: ['order.created'],
    });
    endpointId = endpoint.id;
    const auth = { authorization: `Bearer ${ctx.merchantKey}` };
    const body = JSON.stringify(ORDER_BODY);
    let base = ctx.server.base;
    let perS = 0;
    const create = async () => JSON.parse(await post(agent, `${base}/v1/orders`, auth, body)).id as string;

    // Steady: a fixed rate well under capacity, so latency is the pipeline's, not a queue's.
    const rate = ctx.quick ? 100 : 200;
    const seconds = ctx.quick ? 6 : 15;
    const steady: Promise<string>[] = [];
    const t0 = Date.now();
    for (let i = 0; i < rate * seconds; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      steady.push(create());
    }
    const steadyIds = await Promise.all(steady);
    const missing = await rx.waitFor(steadyIds, 30_000);
    if (missing > 0) throw new Skip(`${missing} of ${steadyIds.length} steady-rate deliveries missing after 30 s`);
    const lat = steadyIds.map((id) => rx.seen.get(id)!).map(([created, at]) => at - created);
    lat.sort((a, b) => a - b);
    ctx.log(`  steady ${rate}/s: p50 ${percentile(lat, 50)} ms, p99 ${percentile(lat, 99)} ms`);

    // Throughput: a backlog of N deliveries drained by a dispatcher alone. While the API's own
    // dispatcher runs it keeps up with creation, so a flood would measure the create rate; here the
    // backlog is made by an API-only server (the main server is stopped first), then `ruta worker`
    // drains it, and the rate is N over the time from its first arrival to its last.
    await ctx.server.stop();
    const apiOnly = await startProcess({
      name: 'ruta (api only)',
      args: [...START_FLAGS, 'dist/cli.js', 'serve', '--api-only'],
      env: ctx.env,
      port: await freePort(),
    });
    try {
      base = apiOnly.base;
      const n = ctx.quick ? 2000 : 10_000;
      const floodIds: string[] = [];
      const f0 = Date.now();
      await pool(n, 32, async () => {
        floodIds.push(await create());
      });
      ctx.log(`  backlog of ${n} created at ${round(n / ((Date.now() - f0) / 1000), 0)}/s`);
      // BENCH_WORKER_PROF=DIR writes the worker's CPU profile there, to see what limits the drain.
      const prof = process.env.BENCH_WORKER_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_PROF}`]
        : [];
      const worker = spawn(process.execPath, [...START_FLAGS, ...prof, 'dist/cli.js', 'worker'], {
        cwd: ROOT,
        env: { ...process.env, ...ctx.env },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      try {
        const missing = await rx.waitFor(floodIds, 120_000);
        if (missing > 0) throw new Skip(`${missing} of ${n} backlog deliveries missing after 120 s`);
      } finally {
        worker.kill('SIGTERM');
        await new Promise((r) => worker.once('exit', r));
      }
      const arrivals = floodIds.map((id) => rx.seen.get(id)![1]);
      const first = Math.min(...arrivals);
      const last = Math.max(...arrivals);
      perS = (n - 1) / (Math.max(1, last - first) / 1000);
      ctx.log(`  worker drained ${n} at ${round(perS, 0)}/s`);
    } finally {
      // Later phases (the profiled create run) must not feed a receiver that is gone.
      if (endpointId)
        await fetch(`${base}/v1/webhook_endpoints/${endpointId}`, {
          method: 'DELETE',
          headers: auth,
        }).catch(() => {});
      endpointId = undefined;
      await apiOnly.stop();
    }

    // Reference: the same receiver under a bare keep-alive POST loop with the dispatcher's concurrency.
    const refSeconds = ctx.quick ? 3 : 5;
    const envelope = rx.sample;
    const hook = `http://127.0.0.1:${rx.port}/hook`;
    const refAgent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    let sent = 0;
    const r0 = performance.now();
    const stopAt = r0 + refSeconds * 1000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < stopAt) {
          await post(refAgent, hook, { 'service-event': 'order.created' }, envelope);
          sent++;
        }
      }),
    );
    refAgent.destroy();
    const refPerS = sent / ((performance.now() - r0) / 1000);
    return {
      e2e_p50_ms: percentile(lat, 50),
      e2e_p99_ms: percentile(lat, 99),
      deliveries_per_s: round(perS, 0),
      reference_per_s: round(refPerS, 0),
      ratio: round(perS / refPerS, 3),
    };
  } finally {
    agent.destroy();
    // Later phases (the profiled create run) must not feed a receiver that is gone.
    if (endpointId) await api(ctx, ctx.merchantKey, 'DELETE', `/v1/webhook_endpoints/${endpointId}`).catch(() => {});
    await rx.stop();
  }
}
