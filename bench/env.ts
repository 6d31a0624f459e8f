import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

export type DbKind = 'sqlite' | 'postgres';

export const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/**
 * The node flags `npm start` launches Ruta with (package.json `start`: `node <flags> dist/cli.js
 * serve`), so every server and worker the bench starts runs as a user's would.
 */
export const START_FLAGS: string[] = (() => {
  const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
  const words = start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('dist/cli.js'));
})();
/** More V8/Node flags for the measured servers (e.g. `--cpu-prof --cpu-prof-dir=DIR`), after START_FLAGS. */
export const BENCH_NODE_FLAGS: string[] = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface Machine {
  nproc: number;
  cpu: string;
  memory_gb: number;
  node: string;
  load_avg_at_start: number[];
}

export function machine(): Machine {
  const model = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? '?';
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  return {
    nproc: Number(execFileSync('nproc').toString().trim()),
    cpu: model.trim(),
    memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    load_avg_at_start: load,
  };
}

export interface FreshDb {
  url: string;
  drop(): Promise<void>;
}

/** A brand-new database for this run: a temp SQLite file, or a new PostgreSQL database. */
export async function freshDb(kind: DbKind): Promise<FreshDb> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'ruta-bench-'));
    return { url: `sqlite:${join(dir, 'ruta.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `ruta_bench_${Date.now()}_${process.pid}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: PG_ADMIN_URL });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Runs the built CLI (`node dist/cli.js …`) against the bench database and parses its --json output. */
export function cli<T>(databaseUrl: string, args: string[]): T {
  const out = execFileSync(process.execPath, ['dist/cli.js', ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, RUTA_LOG_LEVEL: 'warn' },
  });
  return JSON.parse(out.toString()) as T;
}

export async function waitHealthy(base: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before answering`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base} did not become healthy within ${timeoutMs} ms`);
}

/** One window of `bench/probe.mjs` inside the server: figures since the previous window. */
export interface ProbeWindow {
  loop: { p50_ms: number; p99_ms: number; max_ms: number; mean_ms: number };
  gc: {
    count: number;
    total_ms: number;
    max_ms: number;
    by_kind: Record<string, { count: number; total_ms: number; max_ms: number }>;
  };
  /** process.memoryUsage() at the end of the window, and its peaks (sampled every 100 ms), MB. */
  memory_mb: Record<'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number>;
  memory_peak_mb: Record<'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number>;
  /** Heap used after a forced full collection: only when the server runs with --expose-gc (diagnosis). */
  live_heap_mb: number | null;
}

export interface Server {
  base: string;
  pid: number;
  /** Date.now() when the process was spawned. */
  startedAt: number;
  /** Peak resident set (VmHWM) over the process's whole life so far, in MB, across resetPeak() calls. */
  peakRssMb(): number;
  /** Resident set now (VmRSS) and the high-water mark since the last resetPeak() (VmHWM), MB. */
  memory(): { rss_mb: number; hwm_mb: number };
  /**
   * Restarts the kernel's high-water mark (`echo 5 > /proc/<pid>/clear_refs`), so the next VmHWM is
   * the peak of what follows; the run's peak is kept by peakRssMb(). False where not permitted.
   */
  resetPeak(): boolean;
  /**
   * The probe's figures, then a new window: 'load' restarts event-loop delay and GC, 'scenario' the
   * memory peaks (one scenario holds several load windows). Null when started without `probe`.
   */
  probe(window?: 'load' | 'scenario'): Promise<ProbeWindow | null>;
  stop(): Promise<void>;
}

const mbOf = (kb: string | undefined) => (kb === undefined ? undefined : Math.round((Number(kb) / 1024) * 10) / 10);

/** VmRSS and VmHWM of a live process, from /proc (VmHWM is the kernel's own high-water mark), MB; {} once it is gone. */
export function procStatus(pid: number): { rss?: number; hwm?: number } {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { rss: mbOf(/VmRSS:\s*(\d+)\s*kB/.exec(text)?.[1]), hwm: mbOf(/VmHWM:\s*(\d+)\s*kB/.exec(text)?.[1]) };
  } catch {
    return {};
  }
}

/** User + system CPU time of a process so far, ms (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  // Fields after the command name (which is in parentheses and may hold spaces): utime is the 12th, stime the 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const PROBE = pathToFileURL(join(ROOT, 'bench', 'probe.mjs')).href;

/**
 * Spawns a node process (the Ruta server or the reference server) and waits for /healthz. With
 * `probe`, `bench/probe.mjs` is loaded into it and answers over an IPC channel.
 */
export async function startProcess(opts: {
  args: string[];
  env: Record<string, string>;
  port: number;
  name: string;
  probe?: boolean;
}): Promise<Server> {
  const startedAt = Date.now();
  const child = spawn(process.execPath, opts.probe ? ['--import', PROBE, ...opts.args] : opts.args, {
    cwd: ROOT,
    env: { ...process.env, ...opts.env, PORT: String(opts.port), HOST: '127.0.0.1' },
    stdio: opts.probe ? ['ignore', 'inherit', 'inherit', 'ipc'] : ['ignore', 'inherit', 'inherit'],
  });
  child.channel?.unref();
  const base = `http://127.0.0.1:${opts.port}`;
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, procStatus(child.pid!).hwm ?? 0);
  };
  const timer = setInterval(sample, 500);
  timer.unref();
  await waitHealthy(base, child);
  let probes = 0;
  return {
    base,
    pid: child.pid!,
    startedAt,
    peakRssMb: () => {
      sample();
      return peak;
    },
    memory: () => {
      const s = procStatus(child.pid!);
      return { rss_mb: s.rss ?? 0, hwm_mb: s.hwm ?? 0 };
    },
    resetPeak: () => {
      sample();
      try {
        writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
        return true;
      } catch {
        return false;
      }
    },
    probe: (window = 'load') => {
      if (!opts.probe || !child.connected) return Promise.resolve(null);
      const id = ++probes;
      return new Promise((resolve) => {
        const timeout = setTimeout(() => done(null), 5000);
        const onMessage = (m: { probe?: number } & ProbeWindow) => {
          if (m?.probe === id) done(m);
        };
        const done = (w: ProbeWindow | null) => {
          clearTimeout(timeout);
          child.off('message', onMessage);
          resolve(w);
        };
        child.on('message', onMessage);
        child.send({ probe: id, window });
      });
    },
    stop: async () => {
      sample();
      clearInterval(timer);
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
