import { spawn } from 'node:child_process';
import { DEFAULT_SETTINGS } from '../../src/features/messages/settings.js';
import { startSmtp, startTwilio } from '../../test/message-providers.js';
import { BENCH_NODE_FLAGS, cpuMs, freePort, ROOT, type Server, START_FLAGS, startProcess } from '../env.js';
import { count, sql } from '../sql.js';
import { cpuSplit, fileSize, threadCpu, writeBytes } from '../threads.js';
import { type Ctx, checked, round, Skip } from './context.js';
import { createLoad, ORDER_BODY } from './create.js';

export interface MessagesResult {
  /**
   * Orders created per second with notifications on as an account gets them (the shipped
   * defaults: order_confirmed by email, so 1 message and its send job per order).
   */
  create_on_rps: number;
  /** The same load with every trigger off, in rounds alternating with the others. */
  create_off_rps: number;
  /** on ÷ off (target ≥ 0.9, issue #19). */
  ratio: number;
  /** The worst case: order_confirmed on for SMS, WhatsApp and email (3 messages per order), and its ratio to off. */
  create_all_rps: number;
  ratio_all: number;
  cpu_per_create_all_us: number;
  cpu_ratio_all: number;
  /**
   * The API server's CPU time (user + system, /proc) per create in the "on" and "off" rounds, in µs,
   * and off ÷ on: what the throughput ratio is on a quiet machine (the server is CPU-bound), and
   * what other processes on a busy one cannot inflate as they do the rounds' wall-clock rates.
   */
  cpu_per_create_on_us: number;
  cpu_per_create_off_us: number;
  cpu_ratio: number;
  /** Message rows written (queued, with their order's send job) per second during the "all" rounds. */
  queued_per_s: number;
  /** A backlog of this many messages drained by one `ruta worker`… */
  backlog: number;
  /** …at this rate: (N − 1) ÷ (last − first arrival at the local providers). */
  sent_per_s: number;
  /** The worker's CPU time (user + system, /proc) per message sent over the drain: what a busy machine cannot inflate. */
  worker_cpu_ms_per_message: number;
  /** Of the backlog, what the local Twilio and SMTP servers received (each exactly once expected). */
  twilio_received: number;
  smtp_received: number;
}

const SID = 'AC00000000000000000000000000bench';
const TOKEN = 'bench-token';
const ALL = { sms: true, whatsapp: true, email: true };
const NONE = { sms: false, whatsapp: false, email: false };
/** What "on" means: the shipped defaults' triggers (quiet hours aside, see `settings`). */
const DEFAULTS = DEFAULT_SETTINGS.triggers;
type Mode = 'off' | 'on' | 'all';
const TRIGGERS = ['order_confirmed', 'out_for_delivery', 'next_stop', 'delivered', 'failed', 'rescheduled'];
const CHANNELS = 3;
/** The server's creates per commit so far (/metrics, `ruta_order_create_batch_size`): its sum and count. */
async function batchSizes(base: string): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? 0);
  return { sum: value('ruta_order_create_batch_size_sum'), count: value('ruta_order_create_batch_size_count') };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue #19. Providers are local: a server answering as Twilio's Messages API (SMS and WhatsApp)
 * and a real SMTP server (smtp-server), both in this process (test/message-providers.ts, the ones
 * the tests use). The main server is stopped first: its in-process worker would take the send jobs
 * (one jobs table), so Ruta runs here as `serve --api-only` plus, for the drain, one `ruta worker`,
 * both configured with the local providers.
 *
 * 1. Order creation with the merchant's live key (test mode suppresses every message) in rounds of
 *    three: every trigger off; "on", the shipped defaults (order_confirmed by email: 1 message and
 *    its send job per order); and "all", order_confirmed on for all three channels (3 messages and
 *    their job per order), the worst a create can write. No worker runs meanwhile, so "on" and
 *    "all" measure writing the messages and their job with each order.
 * 2. Their backlog is dropped (SQL), a fresh one of N orders × 3 is written, and one worker drains it.
 */
export async function messagesScenario(ctx: Ctx): Promise<MessagesResult> {
  if (!ctx.merchantLiveKey) throw new Skip('no live merchant key');
  const key = ctx.merchantLiveKey;
  await ctx.server.stop();
  const smtp = await startSmtp();
  const twilio = await startTwilio(SID, TOKEN);
  const env = {
    ...ctx.env,
    RUTA_PUBLIC_URL: 'https://ruta.example.com',
    // BENCH_SMTP_POOL=1: nodemailer's pool (`?pool=true`), one SMTP connection for many messages;
    // without it every message opens its own (and smtp-server greets each after 100 ms).
    RUTA_SMTP_URL: process.env.BENCH_SMTP_POOL === '1' ? `${smtp.url}?pool=true` : smtp.url,
    RUTA_EMAIL_FROM: 'avisos@ruta.example.com',
    RUTA_TWILIO_ACCOUNT_SID: SID,
    RUTA_TWILIO_AUTH_TOKEN: TOKEN,
    RUTA_TWILIO_SMS_FROM: '+15005550006',
    RUTA_TWILIO_WHATSAPP_FROM: '+14155238886',
    RUTA_TWILIO_API_URL: twilio.url,
  };
  let api: Server | undefined;
  let restore: (() => Promise<void>) | undefined;
  try {
    api = await startProcess({
      name: 'ruta (api only, providers)',
      // BENCH_NODE_FLAGS as for the main server (e.g. `--cpu-prof --cpu-prof-dir=DIR` for the create path with messages).
      args: [...START_FLAGS, ...BENCH_NODE_FLAGS, 'dist/cli.js', 'serve', '--api-only'],
      env,
      port: await freePort(),
    });
    const base = api.base;
    const put = async (body: unknown) => {
      const res = await fetch(`${base}/v1/notification_settings`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Skip(`PUT /v1/notification_settings answered ${res.status}: ${await res.text()}`);
    };
    // Put back at the end: the run's later create profile writes (suppressed) messages by them.
    const res = await fetch(`${base}/v1/notification_settings`, { headers: { authorization: `Bearer ${key}` } });
    const saved = (await res.json()) as { triggers: unknown; quiet_hours: unknown };
    restore = () => put({ triggers: saved.triggers, quiet_hours: saved.quiet_hours });
    // No quiet hours: a night-time run would defer every message (the job is written either way).
    const settings = (mode: Mode) =>
      put({
        triggers: Object.fromEntries(
          TRIGGERS.map((t) => [
            t,
            mode === 'on'
              ? DEFAULTS[t as keyof typeof DEFAULTS]
              : mode === 'all' && t === 'order_confirmed'
                ? ALL
                : NONE,
          ]),
        ),
        quiet_hours: null,
      });
    const messages = () => count(ctx.kind, ctx.dbUrl, 'select count(*) as n from messages');

    const seconds = ctx.quick ? 3 : 5;
    const n = ctx.quick ? 3 : 5;
    await settings('all');
    checked('messages warm-up', await createLoad(ctx.loader, base, key, ctx.quick ? 2 : 5));
    const rps: Record<Mode, number[]> = { off: [], on: [], all: [] };
    const queued: number[] = [];
    const cpu: Record<Mode, { ms: number; n: number }> = {
      off: { ms: 0, n: 0 },
      on: { ms: 0, n: 0 },
      all: { ms: 0, n: 0 },
    };
    // SQLite: the database file and its WAL, whose growth each round's log line shows.
    const file = ctx.kind === 'sqlite' ? ctx.dbUrl.replace(/^sqlite:/, '') : '';
    const load = async (which: Mode) => {
      const pid = api!.pid;
      const b0 = await batchSizes(base);
      const c0 = cpuMs(pid);
      const t0 = threadCpu(pid);
      const w0 = writeBytes(pid);
      // BENCH_PERF_DIR=DIR: `perf record` of the server during each round (native frames: SQLite, libuv, V8).
      const perf = process.env.BENCH_PERF_DIR
        ? spawn(
            'perf',
            [
              'record',
              '-q',
              '-F',
              '999',
              '-g',
              '-p',
              String(pid),
              '-o',
              `${process.env.BENCH_PERF_DIR}/${which}-${rps[which].length + 1}.data`,
            ],
            { stdio: 'ignore' },
          )
        : undefined;
      const r = checked(`create, notifications ${which}`, await createLoad(ctx.loader, base, key, seconds));
      if (perf) {
        perf.kill('SIGINT');
        await new Promise((done) => perf.once('exit', done));
      }
      cpu[which].ms += cpuMs(pid) - c0;
      cpu[which].n += r.requests;
      // Where the round's CPU went, per create: the main thread, then the busiest other threads.
      const split = cpuSplit(pid, t0, threadCpu(pid));
      const us = (ms: number) => round((1000 * ms) / r.requests, 0);
      const kbOf = (bytes: number) => round(bytes / 1024 / r.requests, 1);
      const others = split.others
        .slice(0, 5)
        .map((t) => `#${t.tid} ${us(t.ms)}${t.written > 0 ? ` (${kbOf(t.written)} KB)` : ''}`)
        .join(', ');
      const batch = await batchSizes(base);
      const perCommit = batch.count > b0.count ? round((batch.sum - b0.sum) / (batch.count - b0.count), 1) : 0;
      const kb = round((writeBytes(pid) - w0) / 1024 / r.requests, 1);
      const sizes = file
        ? `, db ${round(fileSize(file) / 2 ** 20, 0)} MB, wal ${round(fileSize(`${file}-wal`) / 2 ** 20, 0)} MB`
        : '';
      ctx.log(
        `    ${which}: ${round(r.rps, 0)} rps, ${r.requests} creates; CPU µs/create main ${us(split.main)} (${kbOf(split.mainWritten)} KB), others ${others}; ${kb} KB to disk/create, ${perCommit} creates/commit${sizes}`,
      );
      return r.rps;
    };
    const run = async (mode: Mode) => {
      await settings(mode);
      const m0 = mode === 'all' ? await messages() : 0;
      const t0 = performance.now();
      rps[mode].push(await load(mode));
      const wall = (performance.now() - t0) / 1000;
      // The requests in flight when wrk stopped still commit: counted once they have.
      await sleep(500);
      if (mode === 'all') queued.push(((await messages()) - m0) / wall);
    };
    // Each round runs the three in a new order (a rotation), so none always follows another: the
    // database grows through the scenario and a round's place in it weighs on its rate.
    const ORDERS: Mode[][] = [
      ['off', 'on', 'all'],
      ['on', 'all', 'off'],
      ['all', 'off', 'on'],
    ];
    for (let i = 0; i < n; i++) {
      for (const mode of ORDERS[i % ORDERS.length]!) await run(mode);
      ctx.log(
        `  round ${i + 1}: off ${round(rps.off[i]!, 0)} rps, on ${round(rps.on[i]!, 0)} rps, all ${round(rps.all[i]!, 0)} rps, ${round(queued[i]!, 0)} messages queued/s (all)`,
      );
    }

    // The drain: only the fresh backlog is left to send (the last round's stragglers committed by now).
    await settings('all');
    await sql(ctx.kind, ctx.dbUrl, "delete from jobs where kind = 'message.send'");
    await sql(ctx.kind, ctx.dbUrl, "delete from messages where status = 'queued'");
    const orders = ctx.quick ? 500 : 2000;
    const backlog = orders * CHANNELS;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < orders) {
          const i = next++;
          const res = await fetch(`${base}/v1/orders`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ ...ORDER_BODY, external_order_id: `MSG-${i}` }),
          });
          if (res.status !== 201) throw new Skip(`backlog order answered ${res.status}`);
          await res.arrayBuffer();
        }
      }),
    );
    const queuedMessages = await count(
      ctx.kind,
      ctx.dbUrl,
      "select count(*) as n from messages where status = 'queued'",
    );
    if (queuedMessages !== backlog) throw new Skip(`backlog of ${queuedMessages} messages, expected ${backlog}`);
    const received = () => twilio.created.length + smtp.mails.length;
    const worker = spawn(process.execPath, [...START_FLAGS, 'dist/cli.js', 'worker'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    let first = 0;
    let last = 0;
    let workerCpu = 0;
    try {
      // Arrivals polled every 5 ms: the resolution is far below the seconds a drain takes.
      const deadline = Date.now() + 180_000;
      while (received() < backlog && Date.now() < deadline && worker.exitCode === null) {
        const before = received();
        await new Promise((r) => setTimeout(r, 5));
        if (before === 0 && received() > 0) first = Date.now();
      }
      last = Date.now();
      // Start-up (loading, migrations check) included: a bound from above.
      workerCpu = worker.exitCode === null ? cpuMs(worker.pid!) : 0;
      if (received() < backlog) throw new Skip(`${backlog - received()} of ${backlog} messages not sent after 180 s`);
    } finally {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('exit', r));
    }
    const sentPerS = (backlog - 1) / (Math.max(1, last - first) / 1000);
    ctx.log(`  one worker sent ${backlog} messages at ${round(sentPerS, 0)}/s`);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const perCreate = (m: Mode) => (1000 * cpu[m].ms) / cpu[m].n;
    ctx.log(
      `  server CPU per create: off ${round(perCreate('off'), 0)} µs, on ${round(perCreate('on'), 0)} µs, all ${round(perCreate('all'), 0)} µs`,
    );
    return {
      create_on_rps: round(mean(rps.on), 0),
      create_off_rps: round(mean(rps.off), 0),
      ratio: round(mean(rps.on) / mean(rps.off), 3),
      create_all_rps: round(mean(rps.all), 0),
      ratio_all: round(mean(rps.all) / mean(rps.off), 3),
      cpu_per_create_on_us: round(perCreate('on'), 0),
      cpu_per_create_off_us: round(perCreate('off'), 0),
      cpu_ratio: round(perCreate('off') / perCreate('on'), 3),
      cpu_per_create_all_us: round(perCreate('all'), 0),
      cpu_ratio_all: round(perCreate('off') / perCreate('all'), 3),
      queued_per_s: round(mean(queued), 0),
      backlog,
      sent_per_s: round(sentPerS, 0),
      worker_cpu_ms_per_message: round(workerCpu / backlog, 2),
      twilio_received: twilio.created.length,
      smtp_received: smtp.mails.length,
    };
  } finally {
    await restore?.().catch((err) => ctx.log(`  could not put the notification settings back: ${err}`));
    await api?.stop();
    await twilio.close();
    await smtp.close();
  }
}
