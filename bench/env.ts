import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export type DbKind = 'sqlite' | 'postgres';

export const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
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

export interface Server {
  base: string;
  pid: number;
  /** Date.now() when the process was spawned. */
  startedAt: number;
  /** Peak resident set (VmHWM) seen so far, in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

/** Peak RSS of a live process, from /proc (VmHWM is the kernel's own high-water mark). */
function vmHwmMb(pid: number): number | undefined {
  try {
    const kb = /VmHWM:\s*(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round((Number(kb) / 1024) * 10) / 10;
  } catch {
    return undefined;
  }
}

/** Spawns a node process (the Ruta server or the reference server) and waits for /healthz. */
export async function startProcess(opts: {
  args: string[];
  env: Record<string, string>;
  port: number;
  name: string;
}): Promise<Server> {
  const startedAt = Date.now();
  const child = spawn(process.execPath, opts.args, {
    cwd: ROOT,
    env: { ...process.env, ...opts.env, PORT: String(opts.port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${opts.port}`;
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, vmHwmMb(child.pid!) ?? 0);
  };
  const timer = setInterval(sample, 500);
  timer.unref();
  await waitHealthy(base, child);
  return {
    base,
    pid: child.pid!,
    startedAt,
    peakRssMb: () => {
      sample();
      return peak;
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
