// Proves the SQLite driver does not abort the process on this Node version (issue: better-sqlite3 12
// on Node >= 24.19 dies with SIGABRT, `Assertion failed: (env) != nullptr`, when a statement is
// garbage-collected outside a JavaScript context). Run with the Node under test, after a build:
//   node scripts/node24-stress.mjs [--cli-runs 100] [--server-seconds 20] [--servers 2] [--churns 8]
// 1. `ruta accounts create` CLI_RUNS times against a temp SQLite database (two at a time);
// 2. SERVERS times: `ruta serve` on 127.0.0.1 with forced garbage collections (scripts/gc-pressure.mjs)
//    under bursts of concurrent requests for SERVER_SECONDS, then SIGTERM;
// 3. CHURNS times: scripts/sqlite-churn.mjs, the project's openDatabase evicting statements from its
//    cache while V8 collects on its own (the leg that aborted every time with the old driver).
// Fails (exit 1) on any abort (exit 134, SIGABRT, an assertion message) or any other failure.
// Loopback only; everything it creates lives in a temp directory it removes.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const PRELOAD = pathToFileURL(join(ROOT, 'scripts', 'gc-pressure.mjs')).href;
const { values } = parseArgs({
  options: {
    'cli-runs': { type: 'string', default: '100' },
    'server-seconds': { type: 'string', default: '20' },
    servers: { type: 'string', default: '2' },
    churns: { type: 'string', default: '8' },
  },
});
const CLI_RUNS = Number(values['cli-runs']);
const SERVER_SECONDS = Number(values['server-seconds']);
const SERVERS = Number(values.servers);
const CHURNS = Number(values.churns);

const dir = mkdtempSync(join(tmpdir(), 'ruta-stress-'));
const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'stress.db')}`, RUTA_LOG_LEVEL: 'warn' };
const failures = [];
const aborts = [];

function isAbort(code, signal, stderr) {
  return code === 134 || signal === 'SIGABRT' || /Assertion failed|Aborted|FATAL ERROR/.test(stderr);
}

/** Runs a child to its end: { code, signal, stdout, stderr }. */
function run(args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, ...opts });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

async function cliRuns() {
  let next = 0;
  let ok = 0;
  async function lane() {
    while (next < CLI_RUNS) {
      const i = next++;
      const r = await run([CLI, 'accounts', 'create', '--name', `Stress ${i}`, '--json']);
      if (isAbort(r.code, r.signal, r.stderr)) aborts.push(`cli run ${i}: exit ${r.code} ${r.signal ?? ''} ${r.stderr.trim().split('\n')[0] ?? ''}`);
      else if (r.code !== 0 || !/"id":"acct_/.test(r.stdout)) failures.push(`cli run ${i}: exit ${r.code}: ${r.stderr.trim()}`);
      else ok++;
    }
  }
  await Promise.all([lane(), lane()]);
  console.log(`cli: ${ok}/${CLI_RUNS} runs exited 0 with an account`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitHealthy(base, child) {
  for (let i = 0; i < 600 && child.exitCode === null; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return true;
    } catch {}
    await sleep(100);
  }
  return false;
}

const ORDER = JSON.stringify({
  customer: { name: 'Stress Test', phone: '+51987654321' },
  delivery_address: { address: 'Av. José Larco 1232', district: 'Miraflores', city: 'Lima', lat: -12.1254, lng: -77.0296 },
  items: [{ sku: 'BOX', description: 'A box', quantity: 1, weight_kg: 1, declared_value: 10 }],
});

/** One of CONNECTIONS loops: creates orders, reads them back, lists pages with several limits. */
async function worker(base, key, until, counts) {
  const auth = { Authorization: `Bearer ${key}` };
  let i = 0;
  while (Date.now() < until) {
    i++;
    try {
      const created = await fetch(`${base}/v1/orders`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: ORDER,
      });
      const order = await created.json();
      counts[created.status] = (counts[created.status] ?? 0) + 1;
      // A refused create has no id to read back: reading /v1/orders/undefined would only add a 404.
      if (created.status !== 201) continue;
      const reads = [
        fetch(`${base}/v1/orders/${order.id}`, { headers: auth }),
        fetch(`${base}/v1/orders?limit=${1 + (i % 20)}`, { headers: auth }),
        fetch(`${base}/healthz`),
      ];
      const statuses = (await Promise.all(reads)).map((r) => r.status);
      for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
    } catch (err) {
      counts.error = (counts.error ?? 0) + 1;
      if (counts.error === 1) failures.push(`request failed: ${err.message}`);
      return;
    }
  }
}

async function serverRun(n) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const account = await run([CLI, 'accounts', 'create', '--name', `Stress server ${n}`, '--json']);
  if (account.code !== 0) {
    failures.push(`server ${n}: accounts create exited ${account.code}: ${account.stderr}`);
    if (isAbort(account.code, account.signal, account.stderr)) aborts.push(`server ${n}: accounts create aborted`);
    return;
  }
  const key = JSON.parse(account.stdout).keys.test;
  // The collections stop themselves after the load plus a start-up allowance (a loaded machine starts
  // the server slowly); the server is stopped once the load ends in any case.
  const child = spawn(process.execPath, ['--expose-gc', '--import', PRELOAD, CLI, 'serve', '--api-only'], {
    cwd: ROOT,
    // The per-key rate limit (6000/min by default) is lifted: a fast machine sends more than that, and
    // a 429 would stop this load from exercising the driver. Limits have their own tests.
    env: {
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      RUTA_STRESS_GC_SECONDS: String(SERVER_SECONDS + 90),
      RUTA_RATE_LIMIT_PER_MIN: '100000000',
    },
  });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  child.stdout.resume();
  const exited = new Promise((r) => child.on('close', (code, signal) => r({ code, signal })));
  if (!(await waitHealthy(base, child))) {
    child.kill('SIGKILL');
    const { code, signal } = await exited;
    (isAbort(code, signal, stderr) ? aborts : failures).push(`server ${n} never became healthy: exit ${code} ${signal ?? ''} ${stderr.trim()}`);
    return;
  }
  const counts = {};
  // Bursts of load with idle spells between them: idle-time collections are when servers died.
  const end = Date.now() + SERVER_SECONDS * 1000;
  while (Date.now() < end && child.exitCode === null) {
    const until = Math.min(end, Date.now() + 4000);
    await Promise.all(Array.from({ length: 8 }, () => worker(base, key, until, counts)));
    await sleep(1000);
  }
  const alive = child.exitCode === null && child.signalCode === null;
  if (alive) child.kill('SIGTERM');
  const { code, signal } = await exited;
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const gcs = /gc-pressure: (\d+) forced collections/.exec(stderr)?.[1] ?? '0';
  console.log(`server ${n}: ${total} requests ${JSON.stringify(counts)}, ${gcs} forced collections, exit ${code}${signal ? ` ${signal}` : ''}`);
  if (isAbort(code, signal, stderr)) aborts.push(`server ${n}: exit ${code} ${signal ?? ''} ${stderr.trim().split('\n').slice(0, 3).join(' | ')}`);
  else if (!alive || code !== 0) failures.push(`server ${n}: died or exited ${code} ${signal ?? ''}: ${stderr.trim()}`);
  if (Number(gcs) === 0) failures.push(`server ${n}: no forced collection ran`);
  const bad = Object.keys(counts).filter((s) => s !== '200' && s !== '201');
  if (bad.length > 0) failures.push(`server ${n}: unexpected answers ${JSON.stringify(counts)}`);
}

async function churns() {
  let ok = 0;
  for (let i = 0; i < CHURNS; i++) {
    const r = await run([join(ROOT, 'scripts', 'sqlite-churn.mjs'), `sqlite:${join(dir, `churn-${i}.db`)}`]);
    if (isAbort(r.code, r.signal, r.stderr)) aborts.push(`churn ${i}: exit ${r.code} ${r.signal ?? ''} ${r.stderr.trim().split('\n')[0] ?? ''}`);
    else if (r.code !== 0 || !r.stdout.includes('churn: 20000 queries')) failures.push(`churn ${i}: exit ${r.code}: ${r.stderr.trim()}`);
    else ok++;
  }
  console.log(`churn: ${ok}/${CHURNS} runs exited 0`);
}

const started = Date.now();
console.log(
  `node ${process.version}: ${CLI_RUNS} CLI runs, ${SERVERS} servers × ${SERVER_SECONDS} s under load with forced GCs, ${CHURNS} statement churns`,
);
try {
  await cliRuns();
  for (let n = 1; n <= SERVERS; n++) await serverRun(n);
  await churns();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`aborts: ${aborts.length}; other failures: ${failures.length}; ${Math.round((Date.now() - started) / 1000)} s`);
for (const a of aborts) console.error(`ABORT ${a}`);
for (const f of failures) console.error(`FAIL ${f}`);
process.exit(aborts.length + failures.length > 0 ? 1 : 0);
