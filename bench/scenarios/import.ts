import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { type Ctx, percentile, round, Skip } from './context.js';
import { schedstat } from './create.js';
import {
  BOMB_MIB,
  bombXlsx,
  IMPORT_ROWS,
  importCsv,
  importXlsx,
  REFUSED_ROWS,
  refusedCsv,
  refusedXlsx,
} from './import-files.js';

/** utime + stime of a process, in seconds (Linux /proc; clock ticks are 100 Hz there). */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Current resident set of the server (VmRSS), MB. */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s*(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) / 1024;
}

/** Latencies of one probe: sequential requests, one after the other, ms. */
export interface Probe {
  n: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/** What the other requests saw while one file was uploaded (and, when valid, imported). */
export interface ImportCase {
  /** The upload's answer: 202 (then `succeeded`), or 422 for a refused file. */
  status: number;
  file_mb: number;
  /** Upload → answer (refused) or → `succeeded` (valid), s. */
  seconds: number;
  /** The error message of a refused file. */
  message?: string;
  /** `GET /healthz`, one after another, at most one every 10 ms. */
  healthz: Probe;
  /** `GET /v1/orders?limit=1` with the merchant key (authentication and a query: the database path). */
  api: Probe;
  /** The server's own event-loop delay over the case (bench/probe.mjs, 1 ms resolution), ms. */
  loop_p99_ms: number | null;
  loop_max_ms: number | null;
  /** Peak VmRSS during the case (sampled every 5 ms) − VmRSS before it, MB. */
  rss_growth_mb: number;
  server_cpu_s: number | null;
  /**
   * The server's main thread over the case, ms per second (/proc/<pid>/task/<pid>/schedstat): on a
   * CPU, and ready to run but waiting for one. On a shared machine the wait, not the code, is most
   * of a stalled probe.
   */
  main_thread_cpu_ms_per_s?: number | null;
  runqueue_wait_ms_per_s?: number | null;
}

export interface ImportResult {
  rows: number;
  /** POST of the file to `succeeded`: upload, parsing, checking, pricing and writing every order. */
  seconds: number;
  rows_per_s: number;
  created: number;
  /** CPU time the server process used meanwhile: steadier than wall time on a shared machine (PostgreSQL's own CPU is not in it). */
  server_cpu_s: number | null;
  /** 1-minute load average when the import started: how busy the machine was. */
  load_avg: number;
  /** The same two probes with nothing else running, just before. Absent in older results. */
  idle?: { healthz: Probe; api: Probe };
  /** csv_10k, xlsx_10k (valid), csv_200k, xlsx_200k (refused by the row cap), xlsx_bomb, xlsx_bomb_lying. */
  cases?: Record<string, ImportCase>;
}

const stats = (xs: number[]): Probe => {
  const s = [...xs].sort((a, b) => a - b);
  return {
    n: s.length,
    p50_ms: round(percentile(s, 50)),
    p99_ms: round(percentile(s, 99)),
    max_ms: round(s[s.length - 1] ?? Number.NaN),
  };
};

/** Each probe starts at most every 10 ms: about 100 requests a second each, not a flood that would slow the import it measures. */
const PROBE_EVERY_MS = 10;

/** Two paced probes (an unauthenticated one and an API read) until stopped. */
function probes(ctx: Ctx) {
  let stop = false;
  const loop = async (url: string, headers: Record<string, string>) => {
    const out: number[] = [];
    while (!stop) {
      const t0 = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`probe ${url} answered ${res.status}`);
      const ms = performance.now() - t0;
      out.push(ms);
      if (ms < PROBE_EVERY_MS) await new Promise((r) => setTimeout(r, PROBE_EVERY_MS - ms));
    }
    return out;
  };
  const h = loop(`${ctx.server.base}/healthz`, {});
  const a = loop(`${ctx.server.base}/v1/orders?limit=1`, { authorization: `Bearer ${ctx.merchantKey}` });
  return async () => {
    stop = true;
    return { healthz: stats(await h), api: stats(await a) };
  };
}

const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Uploads one file with the probes running; a 202 is followed until the import has finished. */
async function runCase(ctx: Ctx, body: string | Buffer, type: string): Promise<ImportCase & { created: number }> {
  const pid = ctx.server.pid;
  const rss0 = rssMb(pid);
  let rssPeak = rss0;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMb(pid));
  }, 5);
  await ctx.server.probe('load');
  const cpu0 = cpuSeconds(pid);
  const s0 = schedstat(pid);
  const stop = probes(ctx);
  const t0 = performance.now();
  let created = 0;
  let status: number;
  let message: string | undefined;
  try {
    const res = await fetch(`${ctx.server.base}/v1/order_imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.merchantKey}`, 'content-type': type },
      body,
    });
    const imp = (await res.json()) as { id?: string; error?: { message: string } };
    status = res.status;
    message = imp.error?.message;
    if (res.status === 404) throw new Skip('POST /v1/order_imports answered 404: not in this build');
    while (res.status === 202) {
      await new Promise((r) => setTimeout(r, 50));
      const r = await fetch(`${ctx.server.base}/v1/order_imports/${imp.id}`, {
        headers: { authorization: `Bearer ${ctx.merchantKey}` },
      });
      const now = (await r.json()) as { status: string; created: number; failed: number };
      if (now.status === 'succeeded' || now.status === 'failed') {
        if (now.created !== IMPORT_ROWS)
          throw new Skip(`import ${now.status}: ${now.created} created, ${now.failed} failed`);
        created = now.created;
        break;
      }
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - t0) / 1000;
  const seen = await stop();
  const cpu1 = cpuSeconds(pid);
  const s1 = schedstat(pid);
  const perS = (i: 0 | 1) => (s0 && s1 ? round((s1[i] - s0[i]) / 1e6 / seconds, 1) : null);
  const loop = await ctx.server.probe('load');
  return {
    status,
    file_mb: round(Buffer.byteLength(body) / 2 ** 20),
    seconds: round(seconds, 2),
    ...(message ? { message } : {}),
    ...seen,
    loop_p99_ms: loop?.loop.p99_ms ?? null,
    loop_max_ms: loop?.loop.max_ms ?? null,
    rss_growth_mb: round(rssPeak - rss0, 1),
    server_cpu_s: cpu0 === null || cpu1 === null ? null : round(cpu1 - cpu0, 2),
    main_thread_cpu_ms_per_s: perS(0),
    runqueue_wait_ms_per_s: perS(1),
    created,
  };
}

/**
 * DESIGN §11: 10 000 rows in under 10 s; issue #18: the other requests' p99 under 50 ms while a
 * 10 000-row import runs and while a 200 000-row file is refused, and zip bombs refused without
 * inflating. Each file is uploaded to the running `ruta serve` (its in-process import runner does
 * the work) with two paced probes beside it; valid imports are followed to `succeeded`.
 */
export async function importScenario(ctx: Ctx): Promise<ImportResult> {
  const idleStop = probes(ctx);
  await new Promise((r) => setTimeout(r, 2000));
  const idle = await idleStop();
  const files: [string, () => Promise<string | Buffer> | string | Buffer, string][] = [
    ['csv_10k', () => importCsv(), CSV],
    ['xlsx_10k', () => importXlsx(), XLSX],
    ['csv_200k', refusedCsv, CSV],
    ['xlsx_200k', refusedXlsx, XLSX],
    ['xlsx_bomb', () => bombXlsx(false), XLSX],
    ['xlsx_bomb_lying', () => bombXlsx(true), XLSX],
  ];
  const cases: Record<string, ImportCase> = {};
  let main: (ImportCase & { created: number }) | undefined;
  let load = 0;
  for (const [name, make, type] of files) {
    const body = await make();
    if (name === 'csv_10k') load = loadavg()[0] ?? 0;
    const c = await runCase(ctx, body, type);
    if (name === 'csv_10k') main = c;
    const { created: _created, ...shown } = c;
    cases[name] = shown;
    ctx.log(
      `import ${name}: ${c.status} in ${c.seconds} s; /healthz p99 ${c.healthz.p99_ms} ms (max ${c.healthz.max_ms}), ` +
        `API p99 ${c.api.p99_ms} ms (max ${c.api.max_ms}); loop max ${c.loop_max_ms} ms; RSS +${c.rss_growth_mb} MB; ` +
        `server CPU ${c.server_cpu_s} s; main thread ${c.main_thread_cpu_ms_per_s} ms/s on a CPU, ${c.runqueue_wait_ms_per_s} ms/s waiting for one; ` +
        `${c.healthz.n} + ${c.api.n} probes` +
        (c.message ? `; "${c.message}"` : ''),
    );
  }
  if (main?.status !== 202) throw new Skip(`the 10 000-row CSV answered ${main?.status}: ${main?.message}`);
  ctx.log(`import: ${REFUSED_ROWS} refused rows, ${BOMB_MIB} MiB bombs, idle /healthz p99 ${idle.healthz.p99_ms} ms`);
  return {
    rows: IMPORT_ROWS,
    seconds: main.seconds,
    rows_per_s: Math.round(IMPORT_ROWS / main.seconds),
    created: main.created,
    server_cpu_s: main.server_cpu_s,
    load_avg: round(load, 1),
    idle,
    cases,
  };
}
