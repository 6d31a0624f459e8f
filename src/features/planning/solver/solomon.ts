import type { Problem, Vehicle } from './types.js';

// The classic Solomon VRPTW text format: a name line, `VEHICLE` with fleet size and capacity, then the
// `CUSTOMER` table whose row 0 is the depot. Travel time equals Euclidean distance, unrounded, as in
// the distance-first best known solutions the benchmark compares with.

export interface SolomonInstance {
  name: string;
  problem: Problem;
  /** Customer number (as in the file) of each job index. */
  customers: number[];
}

export function parseSolomon(text: string): SolomonInstance {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const name = lines.find((l) => l !== '') ?? '';
  const vi = lines.findIndex((l) => /^VEHICLE/i.test(l));
  const ci = lines.findIndex((l) => /^CUSTOMER/i.test(l));
  if (vi < 0 || ci < 0) throw new Error('not a Solomon instance: missing the VEHICLE or CUSTOMER section');
  const fleetLine = lines.slice(vi + 1, ci).find((l) => /^\d/.test(l));
  const [fleet, capacity] = (fleetLine ?? '').split(/\s+/).map(Number);
  if (!fleet || !Number.isInteger(fleet) || capacity === undefined || !Number.isFinite(capacity)) {
    throw new Error('not a Solomon instance: bad vehicle number or capacity');
  }
  const rows = lines
    .slice(ci + 1)
    .filter((l) => /^\d/.test(l))
    .map((l) => l.split(/\s+/).map(Number));
  if (rows.length < 2 || rows.some((r) => r.length < 7 || r.some((x) => !Number.isFinite(x)))) {
    throw new Error('not a Solomon instance: the customer table needs 7 numbers per row and a depot');
  }
  const size = rows.length;
  const time = new Float64Array(size * size);
  for (let a = 0; a < size; a++) {
    for (let b = 0; b < size; b++) {
      const ra = rows[a] as number[];
      const rb = rows[b] as number[];
      time[a * size + b] = Math.hypot((ra[1] as number) - (rb[1] as number), (ra[2] as number) - (rb[2] as number));
    }
  }
  const depot = rows[0] as number[];
  const jobs = rows.slice(1).map((r, i) => ({
    location: i + 1,
    demand: [r[3] as number],
    ready: r[4] as number,
    due: r[5] as number,
    service: r[6] as number,
  }));
  const vehicles = depotFleet(fleet, capacity, depot[4] as number, depot[5] as number);
  return {
    name,
    problem: { size, time, distance: time, jobs, vehicles },
    customers: rows.slice(1).map((r) => r[0] as number),
  };
}

/** A benchmark's fleet: `fleet` identical vehicles from and back to the depot (location 0) within its window. */
export function depotFleet(fleet: number, capacity: number, open: number, close: number): Vehicle[] {
  return Array.from({ length: fleet }, () => ({
    capacity: [capacity],
    shiftStart: open,
    shiftEnd: close,
    startLocation: 0,
    endLocation: 0,
  }));
}
