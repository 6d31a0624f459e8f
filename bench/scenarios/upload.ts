import { cpuMs, procStatus } from '../env.js';
import { type Ctx, percentile, round } from './context.js';

export interface UploadResult {
  /** Upload size, MiB. */
  size_mib: number;
  /** /healthz latency with no upload running: p50 and max, ms. */
  idle_p50_ms: number;
  idle_max_ms: number;
  /** The slowest /healthz answer while an upload was being received and stored, ms. */
  during_max_ms: number;
  /** The probe's p99 while idle and during the uploads, ms (issue #18: other requests' p99). Absent in older results. */
  idle_p99_ms?: number;
  during_p99_ms?: number;
  /**
   * during_max_ms − idle_max_ms (0 when lower): how much longer than anything seen while idle an
   * upload held another request up. Compared with the idle maximum, not its median, because on a
   * shared machine the idle probe alone has outliers of tens of milliseconds.
   */
  delay_ms: number;
  /**
   * Server CPU time (user + system, from /proc) per stored upload, ms: an upper bound on how long
   * an upload can block the event loop, unaffected by what else the machine runs.
   */
  cpu_ms_per_upload: number;
  /** Peak resident-set growth of the server during the uploads ÷ the upload size. */
  rss_growth_x: number;
}

const SIZE = 10 * 1024 * 1024; // the largest upload the API accepts
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Current resident set of the server (VmRSS, not the run's high-water mark), in bytes (to 0.1 MB). */
const rssBytes = (pid: number): number => (procStatus(pid).rss ?? 0) * 1024 * 1024;

/** Sequential /healthz calls until `until()` is true; their latencies, ms. */
async function probe(base: string, until: () => boolean, minCount = 0): Promise<number[]> {
  const out: number[] = [];
  while (!until() || out.length < minCount) {
    const t0 = performance.now();
    const res = await fetch(`${base}/healthz`);
    await res.arrayBuffer();
    out.push(performance.now() - t0);
  }
  return out;
}

/**
 * Three 10 MiB uploads (two stored, one refused by its magic bytes), each with a sequential
 * /healthz probe beside it: the probe's worst latency against its idle p50 is the delay an upload
 * imposes on everyone else, and the server's RSS, sampled every 5 ms, shows what buffering it costs.
 */
export async function uploadScenario(ctx: Ctx): Promise<UploadResult> {
  const base = ctx.server.base;
  const png = Buffer.alloc(SIZE, 0x5a);
  PNG_MAGIC.copy(png);
  const notPng = Buffer.alloc(SIZE, 0x5a);

  let stop = false;
  setTimeout(() => {
    stop = true;
  }, 2000);
  const idleCpu0 = cpuMs(ctx.server.pid);
  const idle = await probe(base, () => stop, 50);
  const idleCpu = cpuMs(ctx.server.pid) - idleCpu0;

  const rss0 = rssBytes(ctx.server.pid);
  let rssPeak = rss0;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssBytes(ctx.server.pid));
  }, 5);
  const during: number[] = [];
  const cpu0 = cpuMs(ctx.server.pid);
  try {
    for (const [body, expected] of [
      [png, 201],
      [notPng, 422],
      [png, 201],
    ] as const) {
      let done = false;
      const upload = fetch(`${base}/v1/files?purpose=photo`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.operatorKey}`, 'content-type': 'image/png' },
        body,
      }).then(
        async (res) => {
          await res.arrayBuffer();
          done = true;
          if (res.status !== expected) throw new Error(`upload answered ${res.status}, expected ${expected}`);
        },
        (err: Error & { cause?: { code?: string } }) => {
          done = true;
          // The refused upload is answered from its first bytes and the connection closed unread;
          // a client still writing may then see the reset instead of the 422. That is the refusal.
          const code = err.cause?.code;
          if (expected === 422 && (code === 'EPIPE' || code === 'ECONNRESET')) return;
          throw err;
        },
      );
      during.push(...(await probe(base, () => done, 1)));
      await upload;
    }
  } finally {
    clearInterval(sampler);
  }
  // Probes cost CPU too: subtract what the same number of idle probes cost.
  const cpuUploads = cpuMs(ctx.server.pid) - cpu0;
  const idleP50 = percentile(idle, 50);
  const duringMax = Math.max(...during);
  ctx.log(`upload: ${idle.length} idle probes, ${during.length} during uploads`);
  return {
    size_mib: SIZE / 1024 / 1024,
    idle_p50_ms: round(idleP50),
    idle_max_ms: round(Math.max(...idle)),
    during_max_ms: round(duringMax),
    idle_p99_ms: round(percentile(idle, 99)),
    during_p99_ms: round(percentile(during, 99)),
    delay_ms: round(Math.max(0, duringMax - Math.max(...idle))),
    cpu_ms_per_upload: round(Math.max(0, cpuUploads - (during.length * idleCpu) / idle.length) / 3, 0),
    rss_growth_x: round((rssPeak - rss0) / SIZE),
  };
}
