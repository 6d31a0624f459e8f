/**
 * `npm run bench [-- --quick] [-- --db postgres] [-- --only reports]`: builds Ruta, starts `node dist/cli.js serve` on a
 * fresh database, drives it from a separate load generator (wrk, else autocannon), and writes
 * bench/results/{latest,<db>}.json and this database's section of BENCHMARKS.md.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BENCH_NODE_FLAGS,
  cli,
  type DbKind,
  freePort,
  freshDb,
  machine,
  ROOT,
  type Server,
  START_FLAGS,
  startProcess,
} from './env.js';
import { detectLoader } from './load.js';
import { type ProfileSummary, summarise } from './profile.js';
import { consoleTable, type MemoryRow, type Results, save } from './report.js';
import { type Ctx, round, Skip } from './scenarios/context.js';
import { createLoad, createScenario } from './scenarios/create.js';
import { consoleFirstLoad } from './scenarios/first-load.js';
import { importScenario } from './scenarios/import.js';
import { listScenario } from './scenarios/list.js';
import { locationScenario } from './scenarios/location.js';
import { messagesScenario } from './scenarios/messages.js';
import { reportsScenario } from './scenarios/reports.js';
import { streamScenario } from './scenarios/stream.js';
import { trackingStreamsScenario } from './scenarios/tracking-streams.js';
import { uploadScenario } from './scenarios/upload.js';
import { webhookScenario } from './scenarios/webhook.js';

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    db: { type: 'string', default: 'sqlite' },
    loader: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    /** Comma-separated scenarios to run (e.g. `create,webhook`); results are then not saved. */
    only: { type: 'string' },
    'no-profile': { type: 'boolean', default: false },
    /** Orders the optional `reports` scenario seeds (`--only reports`); the goal is stated for 1 M. */
    'report-orders': { type: 'string', default: '1000000' },
  },
});
if (opts.db !== 'sqlite' && opts.db !== 'postgres') throw new Error('--db must be sqlite or postgres');
const kind = opts.db as DbKind;
const log = (msg: string) => console.log(`[bench] ${msg}`);

function serverEnv(dbUrl: string, filesDir: string): Record<string, string> {
  return {
    DATABASE_URL: dbUrl,
    RUTA_LOG_LEVEL: 'warn',
    // On, as in production, but with a ceiling the load never reaches (one key drives all of it, and
    // the default 6000/min would turn the run into a measure of 429s): every request still pays for
    // counting and, on PostgreSQL, the shared sync. BENCH_RATE_LIMIT=0 shows the API without it.
    RUTA_RATE_LIMIT_PER_MIN: process.env.BENCH_RATE_LIMIT ?? '100000000',
    RUTA_WEBHOOK_ALLOW_INSECURE: '1',
    // The tracking-streams scenario opens thousands of public streams from a few loopback addresses
    // (a real page is one per customer); other scenarios do not touch the public routes.
    RUTA_TRACK_STREAMS_PER_CLIENT: '1000000',
    RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '100000000',
    RUTA_FILES_DIR: filesDir,
  };
}

/**
 * The server's memory over the span since the previous call: its resident set before and after,
 * the kernel's high-water mark over the span (VmHWM, restarted at the end for the next span), and
 * the probe's peaks of the V8 heap and of memory outside it (external, of which array buffers).
 */
async function memoryRow(server: Server, rssBefore: number): Promise<MemoryRow> {
  const m = server.memory();
  const w = await server.probe('scenario');
  server.resetPeak();
  return {
    rss_before_mb: rssBefore,
    rss_after_mb: m.rss_mb,
    peak_mb: m.hwm_mb,
    heap_total_peak_mb: w?.memory_peak_mb.heapTotal ?? null,
    heap_used_after_mb: w?.memory_mb.heapUsed ?? null,
    external_peak_mb: w?.memory_peak_mb.external ?? null,
    array_buffers_peak_mb: w?.memory_peak_mb.arrayBuffers ?? null,
    ...(w?.live_heap_mb != null ? { live_heap_mb: w.live_heap_mb } : {}),
  };
}

/** A second, profiled server on the same database, under the create load only, so the profile is the create path. */
async function profileCreate(ctx: Ctx, env: Record<string, string>): Promise<ProfileSummary> {
  const dir = mkdtempSync(join(tmpdir(), 'ruta-prof-'));
  try {
    const server = await startProcess({
      name: 'ruta (profiled)',
      args: [...START_FLAGS, '--cpu-prof', `--cpu-prof-dir=${dir}`, 'dist/cli.js', 'serve'],
      env,
      port: await freePort(),
    });
    // Start-up (module loading, migrations) is in the profile too; only samples from here on count.
    const loadFromMs = Date.now() - server.startedAt;
    try {
      await createLoad(ctx.loader, server.base, ctx.merchantKey, ctx.quick ? 5 : 10);
    } finally {
      await server.stop();
    }
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the profiled server wrote no .cpuprofile');
    // Kept for a look in DevTools; .gitignore keeps it out of commits.
    copyFileSync(join(dir, file), join(ROOT, 'bench', 'results', `create-${kind}.cpuprofile`));
    return summarise(join(dir, file), loadFromMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const m = machine();
  const { loader, version } = detectLoader(opts.loader);
  log(`${kind}, ${opts.quick ? 'quick' : 'full'} run; load generator: ${version}`);
  log(`machine: ${m.nproc} × ${m.cpu}, ${m.memory_gb} GiB, node ${m.node}, load ${m.load_avg_at_start.join(' ')}`);
  if (!opts['skip-build']) {
    log('npm run build');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  }
  const db = await freshDb(kind);
  const filesDir = mkdtempSync(join(tmpdir(), 'ruta-bench-files-'));
  const skipped: Record<string, string> = {};
  const results: Results['results'] = {
    create: null,
    list_depth: null,
    webhook: null,
    location: null,
    import: null,
    stream: null,
    upload: null,
    tracking_streams: null,
    messages: null,
    console_first_load: null,
    rss_mb: null,
  };
  const memory: Record<string, MemoryRow> = {};
  let profile: ProfileSummary | null = null;
  let server: Server | undefined;
  try {
    // The CLI migrates the fresh database and creates the account and keys, as an operator would.
    const acct = cli<{ account: { id: string }; keys: { test: string; live: string } }>(db.url, [
      'accounts',
      'create',
      '--name',
      'Bench',
    ]);
    const op = cli<{ secret: string }>(db.url, ['keys', 'create', '--operator', '--mode', 'test']);
    const env = serverEnv(db.url, filesDir);
    // The flags of `npm start`, then BENCH_NODE_FLAGS: more V8/Node flags for the measured server
    // only (e.g. to try a heap setting; a later flag wins over the same one earlier).
    const flags = [...START_FLAGS, ...BENCH_NODE_FLAGS];
    server = await startProcess({
      name: 'ruta',
      args: [...flags, 'dist/cli.js', 'serve'],
      env,
      port: await freePort(),
      probe: true,
    });
    const main = server;
    // The webhook scenario stops the server half-way: its memory row is taken just before.
    let rss0 = 0;
    let stoppedRow: MemoryRow | undefined;
    const ctx: Ctx = {
      kind,
      quick: opts.quick!,
      loader,
      server: {
        ...main,
        stop: async () => {
          stoppedRow ??= await memoryRow(main, rss0);
          await main.stop();
        },
      },
      dbUrl: db.url,
      accountId: acct.account.id,
      merchantKey: acct.keys.test,
      merchantLiveKey: acct.keys.live,
      operatorKey: op.secret,
      env,
      log,
    };
    // Webhook and messages last: once an endpoint is subscribed, every create also feeds the
    // dispatcher, and both stop the main server (its in-process worker would take their jobs).
    const scenarios = [
      ['create', createScenario],
      ['list_depth', listScenario],
      ['location', locationScenario],
      ['import', importScenario],
      ['stream', streamScenario],
      ['upload', uploadScenario],
      // Only when named (`--only reports`): it seeds a million orders of its own. Before the
      // scenarios that stop the main server.
      ['reports', (c: Ctx) => reportsScenario(c, Number(opts['report-orders']))],
      ['tracking_streams', trackingStreamsScenario],
      ['webhook', webhookScenario],
      ['messages', messagesScenario],
    ] as const;
    // Names on the command line may be written with dashes (`--only tracking-streams`).
    const only = opts.only?.split(',').map((s) => s.trim().replace(/-/g, '_'));
    // Not a load: what the console's first screen downloads, read from the build this run made.
    if (!only || only.includes('console_first_load')) {
      try {
        results.console_first_load = consoleFirstLoad();
        log(`console_first_load: ${JSON.stringify(results.console_first_load)}`);
      } catch (err) {
        skipped.console_first_load = err instanceof Error ? err.message : String(err);
      }
    }
    // Start-up to the first scenario: the idle floor.
    memory.start = await memoryRow(server, server.memory().rss_mb);
    for (const [name, run] of scenarios) {
      if (only ? !only.includes(name) : name === 'reports') continue;
      log(`${name}…`);
      const s0 = performance.now();
      rss0 = server.memory().rss_mb;
      // Once a scenario has stopped the main server, later ones run their own: no row of its memory.
      const stoppedBefore = stoppedRow !== undefined;
      try {
        (results as Record<string, unknown>)[name] = await run(ctx);
        log(`${name}: ${JSON.stringify(results[name])} (${round((performance.now() - s0) / 1000, 1)} s)`);
      } catch (err) {
        const cause = err instanceof Error && err.cause ? ` (${String(err.cause)})` : '';
        const msg =
          err instanceof Skip ? err.message : `failed: ${err instanceof Error ? err.message : String(err)}${cause}`;
        skipped[name] = msg;
        log(`${name} → null: ${msg}`);
      } finally {
        if (!stoppedBefore) {
          memory[name] = stoppedRow ?? (await memoryRow(server, rss0));
          log(`${name} memory: ${JSON.stringify(memory[name])}`);
        }
      }
    }
    results.rss_mb = server.peakRssMb();
    results.memory = memory;
    await server.stop();
    server = undefined;
    if (!opts['no-profile']) {
      log('create-path CPU profile…');
      try {
        profile = await profileCreate(ctx, env);
      } catch (err) {
        skipped.create_profile = err instanceof Error ? err.message : String(err);
      }
    }
  } finally {
    await server?.stop();
    rmSync(filesDir, { recursive: true, force: true });
    if (opts.keep) log(`kept database ${db.url}`);
    else await db.drop();
  }
  const out: Results = {
    date: new Date().toISOString(),
    machine: m,
    db: kind,
    results,
    skipped,
    run: { mode: opts.quick ? 'quick' : 'full', loader: version, wall_s: round((performance.now() - t0) / 1000, 1) },
    create_profile: profile,
  };
  // A partial run (--only, --no-profile) is for trying a change: it does not overwrite the results.
  const saved = !opts.only && !opts['no-profile'];
  if (saved) save(ROOT, out);
  console.log(`\n${consoleTable(out)}\n`);
  for (const [k, v] of Object.entries(skipped)) console.log(`${k}: ${v}`);
  if (profile) {
    console.log('\ncreate path, top self time:');
    for (const f of profile.top_frames.slice(0, 10))
      console.log(`  ${String(f.self_pct).padStart(5)} %  ${f.frame}  ${f.where}`);
  }
  const wrote = saved
    ? `wrote bench/results/latest.json, bench/results/${kind}.json and BENCHMARKS.md`
    : 'partial run: nothing saved';
  console.log(`\n${wrote} (${out.run.wall_s} s)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
