import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One HTTP request of a load run; several are sent in rotation (wrk only). */
export interface Req {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export interface LoadSpec {
  base: string;
  headers: Record<string, string>;
  requests: Req[];
  connections: number;
  seconds: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** Non-2xx/3xx answers plus socket errors and timeouts: a run with any is not a valid figure. */
  errors: number;
}

export type Loader = 'wrk' | 'autocannon';

export function detectLoader(forced?: string): { loader: Loader; version: string } {
  if (forced === 'autocannon') return { loader: 'autocannon', version: AUTOCANNON };
  try {
    const v = execFileSync('wrk', ['-v'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    return { loader: 'wrk', version: banner(v) };
  } catch (err) {
    // wrk -v exits 1 after printing its banner.
    const out = String((err as { stdout?: Buffer }).stdout ?? '');
    if (out.startsWith('wrk')) return { loader: 'wrk', version: banner(out) };
    if (forced === 'wrk') throw new Error('wrk is not installed (apt-get install -y wrk)');
    return { loader: 'autocannon', version: AUTOCANNON };
  }
}

const AUTOCANNON = 'autocannon@8.0.0';
const banner = (v: string) => (v.split('\n', 1)[0] ?? '').replace(/\s+Copyright.*/, '').trim();

const lua = (s: string) => `[==[${s}]==]`;

function wrkScript(spec: LoadSpec): string {
  const headers = Object.entries(spec.headers)
    .map(([k, v]) => `[ ${lua(k)} ]=${lua(v)}`)
    .join(',');
  const reqs = spec.requests
    .map((r) => `{${lua(r.method)},${lua(r.path)},${r.body === undefined ? 'nil' : lua(r.body)}}`)
    .join(',\n');
  // Requests are formatted once per thread in init(), so request() costs wrk nothing per call.
  return `local specs = {\n${reqs}\n}
local reqs = {}
local i = 0
init = function(args)
  for _, s in ipairs(specs) do
    local h = {${headers}}
    if s[3] ~= nil then h["Content-Type"] = "application/json" end
    reqs[#reqs + 1] = wrk.format(s[1], s[2], h, s[3])
  end
end
request = function()
  i = i + 1
  if i > #reqs then i = 1 end
  return reqs[i]
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%.0f,"duration_us":%.0f,"p50_us":%.0f,"p99_us":%.0f,"errors":%.0f}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status + e.connect + e.read + e.write + e.timeout))
end
`;
}

async function viaWrk(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'ruta-wrk-'));
  try {
    const script = join(dir, 'load.lua');
    writeFileSync(script, wrkScript(spec));
    // One wrk thread: on a 2-core box the server needs the other core more than wrk does.
    const { stdout, stderr } = await run('wrk', [
      '-t1',
      `-c${spec.connections}`,
      `-d${spec.seconds}s`,
      '--timeout',
      '10s',
      '-s',
      script,
      spec.base,
    ]);
    const line = stdout.split('\n').find((l) => l.startsWith('WRKJSON '));
    if (!line) throw new Error(`wrk printed no summary:\n${stdout}${stderr}`);
    const r = JSON.parse(line.slice(8));
    return {
      requests: r.requests,
      rps: r.requests / (r.duration_us / 1e6),
      p50_ms: r.p50_us / 1000,
      p99_ms: r.p99_us / 1000,
      errors: r.errors,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Fallback when wrk is absent: autocannon's CLI, which sends the first request of the rotation only. */
async function viaAutocannon(spec: LoadSpec): Promise<LoadResult> {
  const r0 = spec.requests[0];
  if (r0 === undefined) throw new Error('a load needs at least one request');
  const headers = { ...spec.headers, ...(r0.body === undefined ? {} : { 'Content-Type': 'application/json' }) };
  const args = ['--yes', AUTOCANNON, '-c', String(spec.connections), '-d', String(spec.seconds), '-m', r0.method];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  if (r0.body !== undefined) args.push('-b', r0.body);
  args.push('--json', spec.base + r0.path);
  const { stdout } = await run('npx', args, { maxBuffer: 64 * 1024 * 1024 });
  const r = JSON.parse(stdout);
  return {
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    errors: (r.non2xx ?? 0) + (r.errors ?? 0) + (r.timeouts ?? 0),
  };
}

export function runLoad(loader: Loader, spec: LoadSpec): Promise<LoadResult> {
  return loader === 'wrk' ? viaWrk(spec) : viaAutocannon(spec);
}
