/**
 * CPU time per order create, in process, with customer messages on and off (issue #19):
 * `app.inject` of `POST /v1/orders` with 32 in flight (so group commit forms groups as under wrk),
 * alternating rounds of "on" (order_confirmed on for SMS, WhatsApp and email) and "off" (every
 * trigger off; `--on defaults`: the shipped settings instead, one email per create), the median of
 * the rounds after the first. No worker runs. process.cpuUsage() is
 * this process's CPU (user + system), which on SQLite is all of a create's work; on PostgreSQL the
 * server's own share is left out. A busy machine inflates it less than a rate.
 *
 * Each round also reports what it allocated on the JS heap per create (KB, from V8's heap
 * statistics before and after every GC: `v8.GCProfiler`) and its scavenges per 1000 creates; a
 * create's allocations are almost all young garbage, which is what makes the scavenges.
 * `--as-bench`: every round like `npm run bench`'s create scenario instead (the test key, the
 * account's default notification settings; reported as `bench_us`/`bench_kb`). `--heap-profile
 * FILE`: V8's sampling heap profiler over the rounds after the first, garbage included, written to
 * FILE (.heapprofile) and ranked by allocation site per create.
 *
 *   npx tsx bench/create-cpu.ts [--db postgres] [--rounds 7] [--creates 1500] [--on all|defaults] [--as-bench] [--heap-profile F]
 *
 * DATABASE for PostgreSQL: TEST_DATABASE_URL (a database is created and dropped).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GCProfiler } from 'node:v8';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { createAccount } from '../src/features/accounts/service.js';
import { DEFAULT_SETTINGS } from '../src/features/messages/settings.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { allocationByOwnCode, allocationSites, type HeapSampler, startHeapSampling } from './heap-sites.js';
import { ORDER_BODY } from './scenarios/create.js';
import { cpuSplit, threadCpu } from './threads.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '7' },
    creates: { type: 'string', default: '1500' },
    'as-bench': { type: 'boolean', default: false },
    'heap-profile': { type: 'string' },
    on: { type: 'string', default: 'all' },
  },
});
const ROUNDS = Number(args.rounds);
const CREATES = Number(args.creates);
const IN_FLIGHT = 32;
const TRIGGERS = ['order_confirmed', 'out_for_delivery', 'next_stop', 'delivered', 'failed', 'rescheduled'];
const settings = (on: boolean) => ({
  // `--on defaults`: the shipped settings (order_confirmed by email: one message per create).
  triggers:
    on && args.on === 'defaults'
      ? DEFAULT_SETTINGS.triggers
      : Object.fromEntries(
          TRIGGERS.map((t) => [
            t,
            {
              sms: on && t === 'order_confirmed',
              whatsapp: on && t === 'order_confirmed',
              email: on && t === 'order_confirmed',
            },
          ]),
        ),
  // The bench's hours are any hours: quiet hours off, so "on" writes queued messages and a job.
  quiet_hours: null,
});

async function database(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (args.db === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'ruta-cpu-'));
    return { url: `sqlite:${join(dir, 'ruta.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const base = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `ruta_cpu_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** Bytes allocated on the JS heap between start and stop: what each GC found used, less what the previous one left. */
function allocationMeter() {
  const profiler = new GCProfiler();
  const usedAtStart = process.memoryUsage().heapUsed;
  profiler.start();
  return () => {
    const usedAtEnd = process.memoryUsage().heapUsed;
    const { statistics } = profiler.stop();
    let bytes = 0;
    let left = usedAtStart;
    let scavenges = 0;
    for (const gc of statistics) {
      bytes += gc.beforeGC.heapStatistics.usedHeapSize - left;
      left = gc.afterGC.heapStatistics.usedHeapSize;
      if (gc.gcType === 'Scavenge') scavenges++;
    }
    return { bytes: bytes + usedAtEnd - left, scavenges };
  };
}

async function main() {
  const db = await database();
  const config = loadConfig({
    RUTA_LOG_LEVEL: 'silent',
    RUTA_PUBLIC_URL: 'https://ruta.example.com',
    RUTA_RATE_LIMIT_PER_MIN: '100000000',
    DATABASE_URL: db.url,
  });
  const handle = openDatabase(config.databaseUrl, { poolSize: 10 });
  await migrate(handle);
  const ctx = createContext(handle, config);
  const app = await buildApp(ctx);
  await app.ready();
  const { keys } = await createAccount(ctx, { name: 'Tienda Bench' });
  const asBench = args['as-bench'];
  const key = asBench ? keys.test : keys.live;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const body = JSON.stringify(ORDER_BODY);
  const setOn = async (on: boolean) => {
    const r = await app.inject({
      method: 'PUT',
      url: '/v1/notification_settings',
      headers,
      payload: JSON.stringify(settings(on)),
    });
    if (r.statusCode !== 200) throw new Error(r.body);
  };
  const round = async () => {
    let next = 0;
    const meter = allocationMeter();
    const start = process.cpuUsage();
    const threads0 = threadCpu(process.pid);
    const worker = async () => {
      while (next < CREATES) {
        next++;
        const r = await app.inject({ method: 'POST', url: '/v1/orders', headers, payload: body });
        if (r.statusCode !== 201) throw new Error(r.body);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const used = process.cpuUsage(start);
    // The main thread's share, and the rest (SQLite's checkpoint thread, V8's GC helpers): a round's
    // CPU is measured across threads, and work one round leaves (pages to checkpoint) lands in the next.
    const split = cpuSplit(process.pid, threads0, threadCpu(process.pid));
    const { bytes, scavenges } = meter();
    return {
      mainUs: (1000 * split.main) / CREATES,
      otherUs: (1000 * split.others.reduce((sum, t) => sum + t.ms, 0)) / CREATES,
      us: (used.user + used.system) / CREATES,
      kb: bytes / 1024 / CREATES,
      scavenges: (scavenges * 1000) / CREATES,
    };
  };
  const series: Record<'on' | 'off' | 'bench', { us: number[]; kb: number[] }> = {
    on: { us: [], kb: [] },
    off: { us: [], kb: [] },
    bench: { us: [], kb: [] },
  };
  let sampler: HeapSampler | undefined;
  for (let i = 0; i < ROUNDS; i++) {
    if (i === 1 && args['heap-profile']) sampler = await startHeapSampling();
    const sides = asBench ? (['bench'] as const) : i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const side of sides) {
      if (side !== 'bench') await setOn(side === 'on');
      const r = await round();
      series[side].us.push(r.us);
      series[side].kb.push(r.kb);
      process.stdout.write(
        `round ${i + 1} ${side.padEnd(5)} ${r.us.toFixed(0)} µs (main thread ${r.mainUs.toFixed(0)}, others ${r.otherUs.toFixed(0)}), ${r.kb.toFixed(1)} KB, ${r.scavenges.toFixed(1)} scavenges per 1000 creates\n`,
      );
    }
  }
  if (sampler && args['heap-profile']) {
    const head = await sampler.stop(args['heap-profile']);
    const units = (ROUNDS - 1) * CREATES * (asBench ? 1 : 2);
    process.stdout.write(`${allocationSites(head, units).join('\n')}\n\nby our own caller:\n`);
    process.stdout.write(`${allocationByOwnCode(head, units).join('\n')}\n`);
  }
  const m = (xs: number[]) => Math.round(median(xs.slice(1)) * 10) / 10;
  const out = asBench
    ? { engine: args.db, rounds: ROUNDS, creates: CREATES, bench_us: m(series.bench.us), bench_kb: m(series.bench.kb) }
    : {
        engine: args.db,
        rounds: ROUNDS,
        creates: CREATES,
        off_us: m(series.off.us),
        on_us: m(series.on.us),
        ratio: Number((median(series.off.us.slice(1)) / median(series.on.us.slice(1))).toFixed(3)),
        off_kb: m(series.off.kb),
        on_kb: m(series.on.kb),
      };
  process.stdout.write(`${JSON.stringify(out)}\n`);
  await app.close();
  await handle.close();
  await db.drop();
}

await main();
