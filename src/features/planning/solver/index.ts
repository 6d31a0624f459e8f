// The route optimizer's public interface: everything outside this folder imports from here.
export { type CheckResult, check, type Violation } from './check.js';
export { BALANCE_BOUND, placeBreaks } from './run.js';
export { parseSolomon, type SolomonInstance } from './solomon.js';
export { solve } from './solve.js';
export type {
  Job,
  Objective,
  Problem,
  RouteSchedule,
  Solution,
  SolveOptions,
  SolveResult,
  StopTimes,
  Unassigned,
  UnassignedReason,
  Vehicle,
  ViolationKind,
} from './types.js';
export { parseVrplib, parseVrplibSolution, type VrplibInstance } from './vrplib.js';
