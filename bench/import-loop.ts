/**
 * How long an import holds the server's event loop, in CPU time of its main thread rather than
 * wall time, so the figure holds on a machine shared with other work (issue #18, defect 8). The
 * server runs in this process (SQLite, or PostgreSQL with --db postgres); the uploads come from
 * curl in a child process, so the client's work is not on this event loop; valid imports are then
 * run by an ImportRunner here, as `ruta serve` runs them.
 *
 *   npx tsx bench/import-loop.ts [--db postgres]
 *
 * A 1 ms interval timer reads the main thread's CPU time (/proc/self/task/<pid>/schedstat): the
 * CPU spent between two of its firings is the longest the thread ran without letting a timer, an
 * I/O callback or a request in. Reported per file: the largest such stretch, the 99th percentile,
 * and the longest wall-clock gap (which the machine's other load inflates), against the same
 * timer over a second of idle just before.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { createAccount } from '../src/features/accounts/service.js';
import { ImportRunner } from '../src/features/imports/runner.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { freshDb } from './env.js';
import { bombXlsx, importCsv, importXlsx, refusedCsv, refusedXlsx, wideCsv } from './scenarios/import-files.js';

const { values } = parseArgs({ options: { db: { type: 'string', default: 'sqlite' } } });
const dir = mkdtempSync(join(tmpdir(), 'ruta-import-loop-'));
const db = values.db === 'postgres' ? await freshDb('postgres') : null;
const config = loadConfig({
  DATABASE_URL: db?.url ?? `sqlite:${join(dir, 'ruta.db')}`,
  RUTA_FILES_DIR: join(dir, 'files'),
  RUTA_LOG_LEVEL: 'silent',
});
const database = openDatabase(config.databaseUrl);
await migrate(database);
const ctx = createContext(database, config);
const app = await buildApp(ctx);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
const { keys } = await createAccount(ctx, { name: 'Import loop' });

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const cpuNs = () => Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]);

/** CPU (and wall) time between consecutive firings of a 1 ms timer while `work` runs, ms. */
async function stretches(work: () => Promise<unknown>) {
  const cpu: number[] = [];
  let wallMax = 0;
  let c0 = cpuNs();
  let w0 = performance.now();
  const timer = setInterval(() => {
    const c = cpuNs();
    const w = performance.now();
    cpu.push((c - c0) / 1e6);
    wallMax = Math.max(wallMax, w - w0);
    c0 = c;
    w0 = w;
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const s = cpu.sort((a, b) => a - b);
  const r = (n: number) => Math.round(n * 10) / 10;
  return {
    cpu_max_ms: r(s[s.length - 1] ?? 0),
    cpu_p99_ms: r(s[Math.floor(s.length * 0.99)] ?? 0),
    wall_max_ms: r(wallMax),
    samples: s.length,
  };
}

function curl(file: string, type: string): Promise<string> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${keys.test}`];
  args.push('-H', `Content-Type: ${type}`, '--data-binary', `@${file}`, `${address}/v1/order_imports`);
  return new Promise((resolve, reject) =>
    execFile('curl', args, { encoding: 'utf8' }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
}

const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const files: [string, () => Promise<string | Buffer> | string | Buffer, string][] = [
  ['csv_10k', () => importCsv(), CSV],
  ['xlsx_10k', () => importXlsx(), XLSX],
  ['csv_10k_10mib', () => wideCsv(), CSV],
  ['csv_200k', refusedCsv, CSV],
  ['xlsx_200k', refusedXlsx, XLSX],
  ['xlsx_bomb', () => bombXlsx(false), XLSX],
  ['xlsx_bomb_lying', () => bombXlsx(true), XLSX],
];
const out: Record<string, unknown> = {
  load_avg: loadavg().map((n) => Math.round(n * 10) / 10),
  idle: await stretches(() => new Promise((r) => setTimeout(r, 1000))),
};
for (const [name, make, type] of files) {
  const file = join(dir, name);
  writeFileSync(file, await make());
  let status = '';
  const upload = await stretches(async () => {
    status = await curl(file, type);
  });
  const runner = new ImportRunner(ctx, pino({ level: 'silent' }));
  const run = status === '202' ? await stretches(() => runner.tick()) : null;
  out[name] = { status: Number(status), upload, ...(run ? { run } : {}) };
  console.error(name, JSON.stringify(out[name]));
}
console.log(JSON.stringify(out));
await app.close();
await database.close();
await db?.drop();
rmSync(dir, { recursive: true, force: true });
