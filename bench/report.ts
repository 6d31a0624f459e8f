import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DbKind, Machine } from './env.js';
import type { ProfileSummary } from './profile.js';
import type { CreateResult } from './scenarios/create.js';
import { FIRST_LOAD_BUDGET_KB, type FirstLoadResult } from './scenarios/first-load.js';
import type { ImportResult } from './scenarios/import.js';
import type { ListResult } from './scenarios/list.js';
import type { LocationResult } from './scenarios/location.js';
import type { MessagesResult } from './scenarios/messages.js';
import type { ReportsResult } from './scenarios/reports.js';
import type { StreamResult } from './scenarios/stream.js';
import type { TrackingStreamsResult } from './scenarios/tracking-streams.js';
import type { UploadResult } from './scenarios/upload.js';
import type { WebhookResult } from './scenarios/webhook.js';

/** The server's memory over one scenario (or, for `start`, from start-up to the first scenario), MB. */
export interface MemoryRow {
  rss_before_mb: number;
  rss_after_mb: number;
  /** VmHWM over the scenario alone (the kernel's high-water mark, restarted between scenarios). */
  peak_mb: number;
  heap_total_peak_mb: number | null;
  heap_used_after_mb: number | null;
  /** Memory V8 tracks outside its heap (Buffers and other array buffers, native objects). */
  external_peak_mb: number | null;
  array_buffers_peak_mb: number | null;
  /** Only in diagnosis runs (BENCH_NODE_FLAGS=--expose-gc): heap used after a forced full collection. */
  live_heap_mb?: number | null;
}

export interface Results {
  date: string;
  machine: Machine;
  db: DbKind;
  results: {
    create: CreateResult | null;
    list_depth: ListResult | null;
    webhook: WebhookResult | null;
    location: LocationResult | null;
    /** Older result files have no import figure. */
    import?: ImportResult | null;
    /** Absent in results older than the stream. */
    stream?: StreamResult | null;
    /** Absent in results written before the scenario existed. */
    upload?: UploadResult | null;
    /** Issue #20 (absent in results written before the scenario existed). */
    tracking_streams?: TrackingStreamsResult | null;
    /** Issue #19 (absent in results written before the scenario existed). */
    messages?: MessagesResult | null;
    /** The console's first screen, gzipped (absent in results older than issue #9). */
    console_first_load?: FirstLoadResult | null;
    /** The optional `--only reports` scenario (never in a saved full run). */
    reports?: ReportsResult | null;
    rss_mb: number | null;
    /** Per scenario, in run order (absent in results older than the per-scenario figures). */
    memory?: Record<string, MemoryRow>;
  };
  /** Scenario → why it recorded null. */
  skipped: Record<string, string>;
  run: { mode: 'quick' | 'full'; loader: string; wall_s: number };
  create_profile: ProfileSummary | null;
}

const yes = (ok: boolean) => (ok ? 'yes' : '**no**');

export function rows(r: Results): string[][] {
  const {
    create: c,
    list_depth: l,
    webhook: w,
    location: loc,
    import: imp,
    stream: st,
    upload: up,
    tracking_streams: ts,
    messages: msg,
    rss_mb,
  } = r.results;
  const single = r.db === 'postgres' ? 2500 : 5000;
  // Deliveries/s: 1500 is the PostgreSQL target; SQLite keeps the earlier 1000 floor (it met 2000).
  const deliveries = r.db === 'postgres' ? 1500 : 1000;
  const skip = (name: string) => [name, `skipped: ${r.skipped[name] ?? 'not run'}`, '', '', '', ''];
  return [
    c
      ? [
          'create',
          `${c.rps} rps, p50 ${c.p50_ms} ms, p99 ${c.p99_ms} ms`,
          `${c.reference_rps} rps`,
          String(c.ratio),
          '≥ 0.70, p99 ≤ 3 × p50',
          yes(c.ratio >= 0.7 && c.p99_ms <= 3 * c.p50_ms),
        ]
      : skip('create'),
    l
      ? [
          'list_depth',
          `deep p50 ${l.deep_p50_ms} ms (${l.orders.toLocaleString('en')} orders)`,
          `first page p50 ${l.first_p50_ms} ms`,
          String(l.ratio),
          '≤ 1.2',
          yes(l.ratio <= 1.2),
        ]
      : skip('list_depth'),
    w
      ? [
          'webhook',
          `e2e p50 ${w.e2e_p50_ms} ms, p99 ${w.e2e_p99_ms} ms; ${w.deliveries_per_s} deliveries/s`,
          `${w.reference_per_s} posts/s`,
          String(w.ratio),
          `p50 < 50 ms, ≥ ${deliveries}/s`,
          yes(w.e2e_p50_ms < 50 && w.deliveries_per_s >= deliveries),
        ]
      : skip('webhook'),
    loc
      ? ['location', `${loc.rps} rps, p99 ${loc.p99_ms} ms`, '', '', `≥ ${single} rps`, yes(loc.rps >= single)]
      : skip('location'),
    imp
      ? [
          'import',
          `${imp.rows.toLocaleString('en')} rows in ${imp.seconds} s (${imp.rows_per_s} rows/s; server CPU ${imp.server_cpu_s} s; load ${imp.load_avg})`,
          '',
          '',
          '< 10 s (SQLite)',
          yes(imp.seconds < 10),
        ]
      : skip('import'),
    ...importCaseRows(imp),
    loc?.batch_points_per_s !== undefined
      ? [
          'location_batch',
          `${loc.batch_points_per_s} points/s (batches of 100), p99 ${loc.batch_p99_ms} ms`,
          '',
          '',
          '≥ 50000 points/s',
          yes(loc.batch_points_per_s >= 50_000),
        ]
      : skip('location_batch'),
    st
      ? [
          'stream',
          `${st.delivered_per_s} events/s to ${st.streams} streams (${st.created_per_s} orders/s); commit→client p50 ${st.commit_to_client_p50_ms} ms, p99 ${st.commit_to_client_p99_ms} ms`,
          '',
          '',
          '',
          '',
        ]
      : skip('stream'),
    up
      ? [
          'upload',
          `${up.size_mib} MiB: /healthz delayed ${up.delay_ms} ms (max ${up.during_max_ms} ms${up.during_p99_ms === undefined ? '' : `, p99 ${up.during_p99_ms} ms`}); RSS +${up.rss_growth_x}× the upload; ${up.cpu_ms_per_upload} ms server CPU per upload`,
          `idle /healthz p50 ${up.idle_p50_ms} ms, ${up.idle_p99_ms === undefined ? '' : `p99 ${up.idle_p99_ms} ms, `}max ${up.idle_max_ms} ms`,
          '',
          'delay < 50 ms, RSS < 3×',
          yes(up.delay_ms < 50 && up.rss_growth_x < 3),
        ]
      : skip('upload'),
    ts
      ? [
          'tracking_streams',
          `${ts.streams} streams (${ts.orders} orders, ${ts.couriers} couriers): RSS ${ts.rss_mb} MB (${ts.rss_before_mb} before they opened, peak ${ts.rss_peak_mb}${ts.rss_peak_by_phase_mb ? `: alone ${ts.rss_peak_by_phase_mb.alone}, opening ${ts.rss_peak_by_phase_mb.opening}, beside ${ts.rss_peak_by_phase_mb.beside}` : ''}); position → all streams p99 ${ts.all_streams_p99_ms} ms (each stream p50 ${ts.each_p50_ms}, p99 ${ts.each_p99_ms} ms, ${ts.missed} missed); create ${ts.create_rps} rps beside them`,
          `create ${ts.create_alone_rps} rps without streams (${ts.rounds ? 'rounds alternating with those beside them' : 'before and after'})`,
          String(ts.create_ratio),
          'RSS < 400 MB, p99 < 1 s, ≥ 0.80',
          yes(ts.rss_peak_mb < 400 && ts.all_streams_p99_ms < 1000 && ts.missed === 0 && ts.create_ratio >= 0.8),
        ]
      : skip('tracking_streams'),
    msg
      ? [
          'messages',
          `create ${msg.create_on_rps} rps with the default notifications (1 message per order), server CPU per create ${msg.cpu_per_create_on_us} µs on, ${msg.cpu_per_create_off_us} µs off (${msg.cpu_ratio}); with all 3 channels on creation ${msg.create_all_rps} rps (${msg.ratio_all} of off; ${msg.queued_per_s} queued/s, ${msg.cpu_per_create_all_us} µs, ${msg.cpu_ratio_all}); one worker sent ${msg.backlog} at ${msg.sent_per_s}/s, ${msg.worker_cpu_ms_per_message} ms CPU each (Twilio ${msg.twilio_received}, SMTP ${msg.smtp_received})`,
          `create ${msg.create_off_rps} rps, notifications off`,
          String(msg.ratio),
          '≥ 0.90',
          yes(msg.ratio >= 0.9 && msg.twilio_received + msg.smtp_received === msg.backlog),
        ]
      : skip('messages'),
    r.results.console_first_load
      ? [
          'console_first_load',
          `${r.results.console_first_load.kb_gz} KB gzipped (JS ${r.results.console_first_load.js_kb_gz} KB, CSS ${r.results.console_first_load.css_kb_gz} KB, ${r.results.console_first_load.files.length} files)`,
          '',
          '',
          `< ${FIRST_LOAD_BUDGET_KB} KB`,
          yes(r.results.console_first_load.kb_gz < FIRST_LOAD_BUDGET_KB),
        ]
      : skip('console_first_load'),
    rss_mb !== null ? ['rss_mb', `${rss_mb} MB peak`, '', '', '< 200 MB', yes(rss_mb < 200)] : skip('rss_mb'),
  ];
}

/**
 * Issue #18: what other requests saw while an import file was uploaded and run. One row for the
 * valid 10 000-row imports, one for the refused files (200 000 rows; zip bombs), p99 of each probe.
 */
function importCaseRows(imp: ImportResult | null | undefined): string[][] {
  if (!imp?.cases || !imp.idle) return [];
  const c = imp.cases;
  const fmt = (names: string[]) =>
    names
      .filter((n) => c[n])
      .map((n) => {
        const x = c[n] as NonNullable<(typeof c)[string]>;
        return `${n} (${x.status}, ${x.seconds} s, RSS +${x.rss_growth_mb} MB): /healthz p99 ${x.healthz.p99_ms} ms, API p99 ${x.api.p99_ms} ms, loop max ${x.loop_max_ms ?? '—'} ms`;
      })
      .join('; ');
  const worst = (names: string[]) =>
    Math.max(...names.filter((n) => c[n]).flatMap((n) => [c[n]?.healthz.p99_ms ?? 0, c[n]?.api.p99_ms ?? 0]));
  const valid = ['csv_10k', 'xlsx_10k'];
  const refused = ['csv_200k', 'xlsx_200k', 'xlsx_bomb', 'xlsx_bomb_lying'];
  const idle = `idle /healthz p99 ${imp.idle.healthz.p99_ms} ms, API p99 ${imp.idle.api.p99_ms} ms`;
  return [
    ['import_others', fmt(valid), idle, '', 'p99 < 50 ms', yes(worst(valid) < 50)],
    [
      'import_refused',
      fmt(refused),
      idle,
      '',
      'p99 < 50 ms, 422',
      yes(worst(refused) < 50 && refused.every((n) => !c[n] || c[n]?.status === 422)),
    ],
  ];
}

const HEAD = ['scenario', 'Ruta', 'reference (same run)', 'ratio', 'target', 'meets'];

export function markdownTable(r: Results): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(HEAD), line(HEAD.map(() => '---')), ...rows(r).map(line)].join('\n');
}

export function consoleTable(r: Results): string {
  const all = [HEAD, ...rows(r)].map((row) => row.map((c) => c.replace(/\*\*/g, '')));
  const widths = HEAD.map((_, i) => Math.max(...all.map((row) => row[i]?.length ?? 0)));
  return all.map((row) => row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')).join('\n');
}

function memoryMarkdown(r: Results): string[] {
  const m = r.results.memory;
  if (!m) return [];
  const v = (x: number | null) => (x === null ? '—' : String(x));
  return [
    'Server memory by scenario, MB (RSS from `/proc/<pid>/status`; peak = `VmHWM` over that scenario alone; heap and external from `process.memoryUsage()` inside the server, sampled every 100 ms):',
    '',
    '| scenario | RSS before | RSS after | peak RSS | V8 heap total, peak | heap used, after | external, peak | of which array buffers |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...Object.entries(m).map(
      ([name, x]) =>
        `| ${name} | ${x.rss_before_mb} | ${x.rss_after_mb} | ${x.peak_mb} | ${v(x.heap_total_peak_mb)} | ${v(x.heap_used_after_mb)} | ${v(x.external_peak_mb)} | ${v(x.array_buffers_peak_mb)} |`,
    ),
    '',
  ];
}

function tailMarkdown(r: Results): string[] {
  const rounds = r.results.create?.rounds;
  if (!rounds?.length) return [];
  const v = (x: number | null) => (x === null ? '—' : String(x));
  return [
    'Create rounds: latency at the client (wrk) beside what the server saw over the same round (`bench/probe.mjs`, in the reference too): its own timing of the request (Fastify, bucket bound of the /metrics histogram), its main thread on a CPU and waiting for one (`/proc/<pid>/task/<pid>/schedstat`), event-loop delay and GC pauses. Times in ms, CPU and run-queue wait in ms per second:',
    '',
    '| round | Ruta rps | p50 | p99 | server p99 ≤ | CPU | run-queue wait | loop p99 | loop max | GC pauses (sum, longest) | reference rps | ref p50 | ref p99 | ref run-queue wait | ref loop max |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rounds.map(
      ({ ruta: a, reference: b }, i) =>
        `| ${i + 1} | ${a.rps} | ${a.p50_ms} | ${a.p99_ms} | ${v(a.server_p99_le_ms ?? null)} | ${v(a.cpu_ms_per_s ?? null)} | ${v(a.runqueue_wait_ms_per_s ?? null)} | ${v(a.loop_p99_ms)} | ${v(a.loop_max_ms)} | ${v(a.gc_count)} (${v(a.gc_total_ms)}, ${v(a.gc_max_ms)}) | ${b.rps} | ${b.p50_ms} | ${b.p99_ms} | ${v(b.runqueue_wait_ms_per_s ?? null)} | ${v(b.loop_max_ms)} |`,
    ),
    '',
  ];
}

function profileMarkdown(p: ProfileSummary | null): string {
  if (!p) return '_No create-path profile in this run._';
  const frames = p.top_frames.map(
    (f) => `| ${f.self_pct} % | \`${f.frame}\` | ${f.where || (f.frame.startsWith('(') ? '(V8)' : '(native)')} |`,
  );
  const pkgs = p.by_package.map((x) => `${x.package} ${x.self_pct} %`).join(', ');
  return [
    `Create-path CPU profile (\`node --cpu-prof\` on the server under the create load; ${p.busy_ms} ms of non-idle samples).`,
    '',
    `Self time by package: ${pkgs}.`,
    '',
    '| self | function | where |',
    '| --- | --- | --- |',
    ...frames,
  ].join('\n');
}

export function section(r: Results): string {
  const m = r.machine;
  const names: Record<DbKind, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
  const skipped = Object.entries(r.skipped).map(([k, v]) => `- \`${k}\` is null: ${v}`);
  return [
    `### ${names[r.db]} (${r.run.mode} run, ${r.date})`,
    '',
    `Machine: ${m.nproc} × ${m.cpu}, ${m.memory_gb} GiB RAM, Node ${m.node}; load average at start ${m.load_avg_at_start.join(' ')}. ` +
      `Load generator: ${r.run.loader}. Wall time ${r.run.wall_s} s.`,
    '',
    markdownTable(r),
    ...(skipped.length ? ['', ...skipped] : []),
    '',
    ...memoryMarkdown(r),
    ...tailMarkdown(r),
    profileMarkdown(r.create_profile),
  ].join('\n');
}

/** Writes latest.json and <db>.json, and replaces this database's marked section of BENCHMARKS.md. */
export function save(root: string, r: Results): void {
  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const json = `${JSON.stringify(r, null, 2)}\n`;
  writeFileSync(join(dir, 'latest.json'), json);
  writeFileSync(join(dir, `${r.db}.json`), json);
  const md = join(root, 'BENCHMARKS.md');
  const begin = `<!-- bench:${r.db}:begin -->`;
  const end = `<!-- bench:${r.db}:end -->`;
  const body = `${begin}\n${section(r)}\n${end}`;
  let text = existsSync(md) ? readFileSync(md, 'utf8') : '# Benchmarks\n';
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  text = a >= 0 && b > a ? text.slice(0, a) + body + text.slice(b + end.length) : `${text.trimEnd()}\n\n${body}\n`;
  writeFileSync(md, text);
}
