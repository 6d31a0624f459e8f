// The transition table is the server's own (DESIGN §4): the web build imports it, so a button is
// shown exactly when the API would accept the move.
import { type Action, TRANSITIONS } from '../../../src/features/lifecycle/transitions.js';
import type { OrderStatus } from './api';

export type { Action };
export { TRANSITIONS };

export const ACTION_LABEL: Record<Action, string> = {
  validate: 'Validate',
  assign: 'Assign',
  ready: 'Ready for pickup',
  pickup: 'Picked up',
  depart: 'Depart',
  approach: 'Approaching',
  arrive: 'Arrived',
  deliver: 'Deliver',
  fail: 'Failed attempt',
  reschedule: 'Reschedule',
  return: 'Return to sender',
  cancel: 'Cancel',
};

/** The moves the table allows from `status`, in the table's order, limited to `only` when given. */
export function allowedMoves(status: OrderStatus, only?: readonly Action[]): Action[] {
  return (Object.keys(TRANSITIONS) as Action[]).filter(
    (a) => (TRANSITIONS[a].from as readonly string[]).includes(status) && (!only || only.includes(a)),
  );
}

export const COURIER_ACTIONS: readonly Action[] = [
  'ready',
  'pickup',
  'depart',
  'approach',
  'arrive',
  'deliver',
  'fail',
];

export const FAILURE_REASONS = [
  'customer_absent',
  'wrong_address',
  'customer_rejected',
  'package_damaged',
  'unsafe_location',
  'other',
] as const;
