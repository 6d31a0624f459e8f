/**
 * CPU time per order create, in process, with customer messages on and off (issue #19):
 * `app.inject` of `POST /v1/orders` with 32 in flight (so group commit forms groups as under wrk),
 * alternating rounds of "on" (order_confirmed on for SMS, WhatsApp and email) and "off" (every
 * trigger off), the median of the rounds after the first. No worker runs. process.cpuUsage() is
 * this process's CPU (user + system), which on SQLite is all of a create's work; on PostgreSQL the
 * server's own share is left out. A busy machine inflates it less than a rate.
 *
 *   npx tsx bench/create-cpu.ts [--db postgres] [--rounds 7] [--creates 1500]
 *
 * DATABASE for PostgreSQL: TEST_DATABASE_URL (a database is created and dropped).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { createAccount } from '../src/features/accounts/service.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { ORDER_BODY } from './scenarios/create.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '7' },
    creates: { type: 'string', default: '1500' },
  },
});
const ROUNDS = Number(args.rounds);
const CREATES = Number(args.creates);
const IN_FLIGHT = 32;
const TRIGGERS = ['order_confirmed', 'out_for_delivery', 'next_stop', 'delivered', 'failed', 'rescheduled'];
const settings = (on: boolean) => ({
  triggers: Object.fromEntries(
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
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
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
  const round = async (): Promise<number> => {
    let next = 0;
    const start = process.cpuUsage();
    const worker = async () => {
      while (next < CREATES) {
        next++;
        const r = await app.inject({ method: 'POST', url: '/v1/orders', headers, payload: body });
        if (r.statusCode !== 201) throw new Error(r.body);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const used = process.cpuUsage(start);
    return (used.user + used.system) / CREATES;
  };
  const on: number[] = [];
  const off: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const side of i % 2 === 0 ? [false, true] : [true, false]) {
      await setOn(side);
      const us = await round();
      (side ? on : off).push(us);
      process.stdout.write(`round ${i + 1} ${side ? 'on ' : 'off'} ${us.toFixed(0)} µs\n`);
    }
  }
  const mOff = median(off.slice(1));
  const mOn = median(on.slice(1));
  const out = {
    engine: args.db,
    rounds: ROUNDS,
    creates: CREATES,
    off_us: Math.round(mOff),
    on_us: Math.round(mOn),
    ratio: Number((mOff / mOn).toFixed(3)),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
  await app.close();
  await handle.close();
  await db.drop();
}

await main();
