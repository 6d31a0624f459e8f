import type { Config } from '../../shared/config.js';
import type { DepotsTable as DepotRow } from '../../shared/db/schema.js';

/** A working day, `HH:mm` to `HH:mm` in the zone of the depot it belongs to (a courier's: its start depot's). */
export interface Shift {
  start: string;
  end: string;
}

/**
 * The depot's working day: its own, else the carrier's (RUTA_DEFAULT_SHIFT), each end on its own.
 * A courier without a shift works it (issue #18, defect 13: never from 00:00).
 */
export function workingDay(depot: Pick<DepotRow, 'shift_start' | 'shift_end'>, config: Config): Shift {
  return { start: depot.shift_start ?? config.defaultShift.start, end: depot.shift_end ?? config.defaultShift.end };
}

/**
 * A courier's shift on a plan: its own (after the plan's overrides), else the working day of the
 * depot it starts from, each end on its own (a courier who only says when it starts ends with the
 * depot's day). The one place a missing shift is filled in: plans store the result, and building
 * a plan's problem fills in plans stored before there were defaults.
 */
export function shiftOf(
  courier: { shift_start: string | null; shift_end: string | null },
  startDepot: Pick<DepotRow, 'shift_start' | 'shift_end'>,
  config: Config,
): Shift {
  const day = workingDay(startDepot, config);
  return { start: courier.shift_start ?? day.start, end: courier.shift_end ?? day.end };
}

/** HH:mm as minutes since midnight; the shift is valid when it ends after it starts. */
const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
export const endsAfterStart = (s: Shift): boolean => minutes(s.end) > minutes(s.start);
