// The solver's problem and solution: generic, in matrix indices and plain numbers, so that it knows
// nothing of orders, couriers or the database. The planning feature (or the Solomon parser) builds a
// Problem; the solver answers with routes of job indices.

/**
 * What the optimizer minimises. `min_vehicles`: fewest routes first, then distance. `balanced`: the
 * shortest distance with every route capped near an even share of the stops, kept only when it costs
 * at most `BALANCE_BOUND` more distance than the distance objective's own answer (see run.ts).
 */
export type Objective = 'min_distance' | 'min_vehicles' | 'balanced';

/**
 * Why a job is left out of every route. `skills`: no vehicle has all its requirements;
 * `route_limit`: a vehicle's maximum stops, duration or distance (or its break) stops it.
 */
export type UnassignedReason = 'time_window' | 'capacity' | 'shift' | 'skills' | 'route_limit';

/** A broken constraint: an unassigned reason, or a break not taken in its window, or a pair split or reversed. */
export type ViolationKind = UnassignedReason | 'break' | 'pair';

/** A rest the vehicle takes at a stop (or at its start) once per route: it starts within [earliest, latest]. */
export interface Break {
  earliest: number;
  latest: number;
  duration: number;
}

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
  /** Skills a vehicle needs to serve this job (e.g. `cold`); default none. */
  requirements?: string[];
  /**
   * This job is a pickup whose load (its own `demand`) is carried to job `delivery` (same vehicle,
   * later in the route) and dropped there; the delivery's own `demand` is not used. Plain jobs are
   * loaded at the start.
   */
  delivery?: number;
}

export interface Vehicle {
  /** Capacity per dimension. */
  capacity: number[];
  /** The vehicle leaves its start location no earlier than `shiftStart` and must be back at its end location by `shiftEnd`. */
  shiftStart: number;
  shiftEnd: number;
  startLocation: number;
  endLocation: number;
  /** The route ends at its last stop (`endLocation` is then ignored): no way back, counted in neither time nor distance. */
  openEnd?: boolean;
  /** Skills this vehicle has (see `Job.requirements`). */
  skills?: string[];
  /** At most this many jobs. */
  maxJobs?: number;
  /** Back at the end (or last stop) at most this long after `shiftStart`. */
  maxDuration?: number;
  /** At most this total distance. */
  maxDistance?: number;
  /** A break taken once per route that lasts until past `break.earliest` (a route over before it needs none). */
  break?: Break;
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
  /**
   * Per vehicle, where its break is taken: after this many of its jobs (0: at the start, before
   * leaving), or null when it takes none (no break, an empty route, or one over before the break).
   */
  breaks?: (number | null)[];
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
  /**
   * Old-generation heap cap of the worker thread, MB: a search that needs more ends with an error
   * whose `code` is `ERR_WORKER_OUT_OF_MEMORY`, and the process goes on. Default: V8's own.
   */
  maxHeapMb?: number;
}

/** When each stop of a route happens, on the earliest schedule (leave at shift start, wait when early). */
export interface StopTimes {
  job: number;
  arrival: number;
  serviceStart: number;
  departure: number;
  /** Load delivered so far, per dimension, after serving this stop (plain jobs are loaded at the start). */
  load: number[];
  /** Load on board after this stop, per dimension: what is left of the start's load, plus pickups not yet delivered. */
  onBoard: number[];
}

export interface RouteSchedule {
  vehicle: number;
  stops: StopTimes[];
  /** Leaves the start location / reaches the end location. */
  start: number;
  end: number;
  distance: number;
  /** The break taken: after how many stops, and when (start and end). */
  break?: { after: number; start: number; end: number };
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
