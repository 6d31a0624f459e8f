import { depotFleet } from './solomon.js';
import type { Problem } from './types.js';

// The VRPLIB format for VRPTW instances (as the Gehring & Homberger 1000-customer set is kept by
// PyVRP): `KEY : value` lines (NAME, DIMENSION = depot + customers, VEHICLES, CAPACITY, SERVICE_TIME),
// then NODE_COORD_SECTION, DEMAND_SECTION, TIME_WINDOW_SECTION, optionally SERVICE_TIME_SECTION, and
// DEPOT_SECTION. Node 1 is the depot. With `dimacs`, every distance and travel time is the Euclidean
// distance truncated to one decimal (the DIMACS 2021 convention the best-known costs use), so the
// model and the checker both judge feasibility and cost exactly as the BKS are judged.

export interface VrplibInstance {
  name: string;
  problem: Problem;
  /** Customer number of each job index, VRPLIB's solution numbering (node id − 1: the depot is 0). */
  customers: number[];
}

export interface VrplibOptions {
  /** Truncate every distance and travel time to one decimal (DIMACS); default: unrounded Euclidean. */
  dimacs?: boolean;
}

const SECTIONS = new Set([
  'NODE_COORD_SECTION',
  'DEMAND_SECTION',
  'TIME_WINDOW_SECTION',
  'SERVICE_TIME_SECTION',
  'DEPOT_SECTION',
]);

export function parseVrplib(text: string, o: VrplibOptions = {}): VrplibInstance {
  const spec = new Map<string, string>();
  const sections = new Map<string, number[][]>();
  let current: number[][] | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line === 'EOF') continue;
    const kv = /^([A-Z_]+)\s*:\s*(.*)$/.exec(line);
    if (kv) {
      spec.set(kv[1] as string, (kv[2] as string).trim());
      current = null;
    } else if (SECTIONS.has(line)) {
      current = [];
      sections.set(line, current);
    } else if (/^[A-Z_]+$/.test(line)) {
      current = null; // a section we do not use (e.g. EDGE_WEIGHT_SECTION): skipped
    } else if (current) {
      current.push(line.split(/\s+/).map(Number));
    }
  }
  const bad = (why: string) => new Error(`not a VRPLIB VRPTW instance: ${why}`);
  const dim = Number(spec.get('DIMENSION'));
  const capacity = Number(spec.get('CAPACITY'));
  if (!Number.isInteger(dim) || dim < 2) throw bad('DIMENSION must be an integer of at least 2');
  if (!Number.isFinite(capacity) || capacity < 0) throw bad('CAPACITY must be a number');
  const fleet = spec.has('VEHICLES') ? Number(spec.get('VEHICLES')) : dim - 1;
  if (!Number.isInteger(fleet) || fleet < 1) throw bad('VEHICLES must be a positive integer');
  const type = spec.get('EDGE_WEIGHT_TYPE') ?? 'EUC_2D';
  if (type !== 'EUC_2D') throw bad(`EDGE_WEIGHT_TYPE ${type} is not supported (only EUC_2D)`);

  /** Rows of a section indexed by node id 1..dim, each with `width` numbers after the id. */
  const table = (name: string, width: number, required: boolean): number[][] | null => {
    const rows = sections.get(name);
    if (!rows) {
      if (required) throw bad(`missing ${name}`);
      return null;
    }
    const out: number[][] = new Array(dim);
    for (const r of rows) {
      const id = r[0] as number;
      if (r.length < width + 1 || r.some((x) => !Number.isFinite(x)) || !Number.isInteger(id) || id < 1 || id > dim) {
        throw bad(`${name}: bad row "${r.join(' ')}"`);
      }
      out[id - 1] = r.slice(1, width + 1);
    }
    for (let i = 0; i < dim; i++) if (!out[i]) throw bad(`${name}: no row for node ${i + 1}`);
    return out;
  };
  const xy = table('NODE_COORD_SECTION', 2, true) as number[][];
  const demand = table('DEMAND_SECTION', 1, true) as number[][];
  const tw = table('TIME_WINDOW_SECTION', 2, true) as number[][];
  const svc = table('SERVICE_TIME_SECTION', 1, false);
  const serviceAll = Number(spec.get('SERVICE_TIME') ?? 0);
  if (!svc && !Number.isFinite(serviceAll)) throw bad('SERVICE_TIME must be a number');
  const depots = (sections.get('DEPOT_SECTION') ?? [[1]]).map((r) => r[0]).filter((d) => d !== -1);
  if (depots.length !== 1 || depots[0] !== 1) throw bad('only one depot, node 1, is supported');

  const time = new Float64Array(dim * dim);
  for (let a = 0; a < dim; a++) {
    for (let b = 0; b < dim; b++) {
      const pa = xy[a] as number[];
      const pb = xy[b] as number[];
      const dx = (pa[0] as number) - (pb[0] as number);
      const dy = (pa[1] as number) - (pb[1] as number);
      time[a * dim + b] = o.dimacs ? truncated(dx, dy) : Math.sqrt(dx * dx + dy * dy);
    }
  }
  const depotTw = tw[0] as number[];
  const jobs = Array.from({ length: dim - 1 }, (_, i) => ({
    location: i + 1,
    demand: [(demand[i + 1] as number[])[0] as number],
    ready: (tw[i + 1] as number[])[0] as number,
    due: (tw[i + 1] as number[])[1] as number,
    service: svc ? ((svc[i + 1] as number[])[0] as number) : serviceAll,
  }));
  const vehicles = depotFleet(fleet, capacity, depotTw[0] as number, depotTw[1] as number);
  return {
    name: spec.get('NAME') ?? '',
    problem: { size: dim, time, distance: time, jobs, vehicles },
    customers: jobs.map((_, i) => i + 1),
  };
}

/**
 * The Euclidean distance truncated to one decimal. For integer coordinates it is computed exactly
 * (⌊√(100·d²)⌋ / 10 by integer square root), so a distance whose tenths digit sits on a floating
 * point boundary is never rounded up, as ⌊10·√(d²)⌋ could.
 */
export function truncated(dx: number, dy: number): number {
  const s = dx * dx + dy * dy;
  if (Number.isInteger(dx) && Number.isInteger(dy) && 100 * s < 2 ** 52) {
    const t = 100 * s;
    let r = Math.floor(Math.sqrt(t));
    while (r * r > t) r--;
    while ((r + 1) * (r + 1) <= t) r++;
    return r / 10;
  }
  return Math.floor(Math.sqrt(s) * 10) / 10;
}

/** The routes and cost of a VRPLIB solution file (`Route #k: c1 c2 …`, `Cost X`), customers numbered from 1. */
export function parseVrplibSolution(text: string): { routes: number[][]; cost: number } {
  const routes: number[][] = [];
  let cost = Number.NaN;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const r = /^Route\s*#\d+\s*:(.*)$/i.exec(line);
    if (r) routes.push((r[1] as string).trim().split(/\s+/).filter(Boolean).map(Number));
    const c = /^Cost\s*:?\s*([-+0-9.eE]+)/i.exec(line);
    if (c) cost = Number(c[1]);
  }
  return { routes, cost };
}
