/**
 * How long a 10 MiB upload holds up the server's event loop, measured inside the server process:
 * `perf_hooks.monitorEventLoopDelay` over the uploads, against the same histogram over the same
 * time with no upload just before. The wrk-style probe in `npm run bench` (scenario `upload`) sees
 * this plus whatever the machine's other load adds; this figure is what the code itself costs.
 *
 *   npx tsx bench/upload-loop.ts [--uploads 5]
 *
 * The uploads come from a child process (curl), so the client's work is not on this event loop.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { createKey } from '../src/features/accounts/service.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';

const { values } = parseArgs({ options: { uploads: { type: 'string', default: '5' } } });
const uploads = Number(values.uploads);
const dir = mkdtempSync(join(tmpdir(), 'ruta-upload-loop-'));
const config = loadConfig({
  DATABASE_URL: `sqlite:${join(dir, 'ruta.db')}`,
  RUTA_FILES_DIR: join(dir, 'files'),
  RUTA_LOG_LEVEL: 'silent',
});
const database = openDatabase(config.databaseUrl);
await migrate(database);
const ctx = createContext(database, config);
const app = await buildApp(ctx);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
const key = (await createKey(ctx, { role: 'operator', mode: 'test', accountId: null })).secret;

// A valid 10 MiB PNG as far as sniffing goes: the signature, then filler.
const png = Buffer.alloc(10 * 1024 * 1024, 7);
Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
const file = join(dir, 'big.png');
writeFileSync(file, png);

function curl(): Promise<string> {
  // Asynchronous: a synchronous spawn would block the very event loop being measured.
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${key}`];
  args.push('-H', 'Content-Type: image/png', '--data-binary', `@${file}`, `${address}/v1/files?purpose=photo`);
  return new Promise((resolve, reject) =>
    execFile('curl', args, { encoding: 'utf8' }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
}

async function histogramOver(work: () => Promise<void>) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await work();
  h.disable();
  return { max_ms: h.max / 1e6, p99_ms: h.percentile(99) / 1e6, p50_ms: h.percentile(50) / 1e6 };
}

const round = (n: number) => Math.round(n * 10) / 10;
let uploadMs = 0;
const during = await histogramOver(async () => {
  const t0 = performance.now();
  for (let i = 0; i < uploads; i++) {
    const status = await curl();
    if (status !== '201') throw new Error(`upload answered ${status}`);
  }
  uploadMs = performance.now() - t0;
});
const idle = await histogramOver(() => new Promise((r) => setTimeout(r, uploadMs)));
console.log(
  JSON.stringify({
    uploads,
    size_mib: 10,
    seconds: round(uploadMs / 1000),
    loop_delay_during: { max_ms: round(during.max_ms), p99_ms: round(during.p99_ms), p50_ms: round(during.p50_ms) },
    loop_delay_idle: { max_ms: round(idle.max_ms), p99_ms: round(idle.p99_ms), p50_ms: round(idle.p50_ms) },
    load_avg: loadavg().map(round),
  }),
);
await app.close();
await database.close();
rmSync(dir, { recursive: true, force: true });
