/** Summarises a V8 .cpuprofile: where the server spent its own (self) time, by function and by package. */
import { readFileSync } from 'node:fs';
import { ROOT } from './env.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface Frame {
  frame: string;
  where: string;
  self_pct: number;
}

export interface ProfileSummary {
  busy_ms: number;
  top_frames: Frame[];
  by_package: { package: string; self_pct: number }[];
}

/** node_modules/<pkg>/…, node:internal…, dist/… or a V8 pseudo-frame such as (garbage collector). */
function location(url: string, line: number): { where: string; pkg: string } {
  if (!url) return { where: '', pkg: '(v8)' };
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + 'node_modules/'.length);
    const [scope = '', name = ''] = rest.split('/');
    const pkg = scope.startsWith('@') ? `${scope}/${name}` : scope;
    return { where: `${rest}:${line + 1}`, pkg };
  }
  if (path.startsWith('node:')) return { where: `${path}:${line + 1}`, pkg: 'node (core)' };
  const rel = path.startsWith(`${ROOT}/`) ? path.slice(ROOT.length + 1) : path;
  return { where: `${rel}:${line + 1}`, pkg: rel.startsWith('dist/') ? 'ruta (dist/)' : rel };
}

/** `fromMs`: samples earlier than this many ms after the profile started are left out (start-up). */
export function summarise(file: string, fromMs = 0, top = 15): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the gap before sample i; the time up to the next sample belongs to sample i.
  let t = 0;
  for (const [i, sample] of p.samples.entries()) {
    t += p.timeDeltas[i] ?? 0;
    if (t < fromMs * 1000) continue;
    const dt = p.timeDeltas[i + 1] ?? 0;
    selfUs.set(sample, (selfUs.get(sample) ?? 0) + dt);
  }
  const frames = new Map<string, { frame: string; where: string; us: number }>();
  const pkgs = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    busy += us;
    const loc = location(url, lineNumber);
    const name = functionName || '(anonymous)';
    const key = `${name}@${loc.where}`;
    const f = frames.get(key) ?? { frame: name, where: loc.where, us: 0 };
    f.us += us;
    frames.set(key, f);
    // V8 pseudo-frames keep their name; other frames without a script are native calls (writev, …).
    const pkg = loc.pkg !== '(v8)' ? loc.pkg : name.startsWith('(') ? name : 'native calls';
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
  }
  const pct = (us: number) => Math.round((us / busy) * 1000) / 10;
  return {
    busy_ms: Math.round(busy / 1000),
    top_frames: [...frames.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((f) => ({ frame: f.frame, where: f.where, self_pct: pct(f.us) })),
    by_package: [...pkgs.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([pkg, us]) => ({ package: pkg, self_pct: pct(us) })),
  };
}
