// The solver's problem and solution: generic, in matrix indices and plain numbers, so that it knows
// nothing of orders, couriers or the database. The planning feature (or the Solomon parser) builds a
// Problem; the solver answers with routes of job indices.

/** What the optimizer minimises. `min_vehicles`: fewest routes first, then distance. */
export type Objective = 'min_distance' | 'min_vehicles';

/** Why a job is left out of every route. */
export type UnassignedReason = 'time_window' | 'capacity' | 'shift';

export interface Job {
  /** Index of the job's place in the matrices. Several jobs may share a location. */
  location: number;
  /** Load per capacity dimension (e.g. [packages, kg]); same length as every vehicle's `capacity`. */
  demand: number[];
  /** Time spent at the stop, in the matrices' time unit. */
  service: number;
  /** Hard window on the start of service: arriving early means waiting until `ready`; starting after `due` is infeasible. */
  ready: number;
  due: number;
  /** Higher is served first when not every job fits: 0 (default) to 3; one job of a level outweighs any number of lower ones. */
  priority?: number;
}

export interface Vehicle {
  /** Capacity per dimension. */
  capacity: number[];
  /** The vehicle leaves its start location no earlier than `shiftStart` and must be back at its end location by `shiftEnd`. */
  shiftStart: number;
  shiftEnd: number;
  startLocation: number;
  endLocation: number;
}

export interface Problem {
  /** Number of locations: the matrices are `size × size`, row-major (`m[from * size + to]`). */
  size: number;
  /** Travel time between locations. Need not be symmetric. */
  time: Float64Array;
  /** Travel distance between locations (the `min_distance` objective). */
  distance: Float64Array;
  jobs: Job[];
  vehicles: Vehicle[];
}

export interface Unassigned {
  job: number;
  reason: UnassignedReason;
}

export interface Solution {
  /** One entry per vehicle, in the order of `problem.vehicles`: the job indices it serves, in order (maybe empty). */
  routes: number[][];
  unassigned: Unassigned[];
}

export interface SolveOptions {
  /** Stop after this long with the best solution found (default 5000). */
  timeLimitMs?: number;
  /** Stop after this many ruin-and-recreate iterations (for reproducible tests); default unlimited. */
  maxIterations?: number;
  /** The same seed and iteration count give the same solution (default 1). */
  seed?: number;
  objective?: Objective;
  /** Called with 0–1 as the search advances (about every 100 ms). */
  onProgress?: (progress: number) => void;
  /** Aborting stops the worker at once; `solve` then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** When each stop of a route happens, on the earliest schedule (leave at shift start, wait when early). */
export interface StopTimes {
  job: number;
  arrival: number;
  serviceStart: number;
  departure: number;
  /** Load carried so far, per dimension, after serving this stop (jobs are deliveries loaded at the start). */
  load: number[];
}

export interface RouteSchedule {
  vehicle: number;
  stops: StopTimes[];
  /** Leaves the start location / reaches the end location. */
  start: number;
  end: number;
  distance: number;
}

/** What `solve` returns: the solution, already checked, with its totals. */
export interface SolveResult extends Solution {
  distance: number;
  /** Number of non-empty routes. */
  vehicles: number;
  /** Per route (non-empty ones only): when each stop is reached, served and left, and the load carried. */
  schedules: RouteSchedule[];
  iterations: number;
  /** Wall-clock time of the whole call, worker start included. */
  ms: number;
}
