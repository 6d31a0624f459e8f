// Pure data and pure functions: the web console and courier app import this file as it is, so
// a button is shown exactly when the API would accept the move. It imports nothing but the stored
// vocabularies (shared/db/tables/orders.ts), which are pure data too.
import {
  FINISHED_STATUSES,
  ORDER_STATUSES,
  type OrderStatus,
  TERMINAL_STATUSES,
} from '../../shared/db/tables/orders.js';

export { FINISHED_STATUSES, ORDER_STATUSES, TERMINAL_STATUSES };

/** A status the courier's stop is over in (FINISHED_STATUSES), for a status read as any string. */
export const isFinished = (status: string) => (FINISHED_STATUSES as readonly string[]).includes(status);

export type Action =
  | 'validate'
  | 'assign'
  | 'ready'
  | 'pickup'
  | 'depart'
  | 'approach'
  | 'arrive'
  | 'deliver'
  | 'fail'
  | 'reschedule'
  | 'return'
  | 'cancel';

export interface Transition {
  from: readonly OrderStatus[];
  to: OrderStatus;
  event: string;
}

/** Every status but the terminal ones: what cancel may leave. */
const NON_TERMINAL: readonly OrderStatus[] = ORDER_STATUSES.filter((s) => !TERMINAL_STATUSES.includes(s));

/** The package is with the courier: picked up, not yet delivered or failed. Only then can an attempt fail. */
export const ON_BOARD_STATUSES: readonly OrderStatus[] = ['picked_up', 'in_transit', 'arriving', 'at_location'];

/**
 * The single source of truth for who may move where (DESIGN §4). Routes, 409s, docs and tests are
 * all derived from this table. `deliver` lands on partially_delivered when fewer packages arrive.
 */
export const TRANSITIONS: Record<Action, Transition> = {
  validate: { from: ['pending'], to: 'validated', event: 'order.validated' },
  assign: {
    from: ['pending', 'validated', 'rescheduled', 'failed', 'assigned'],
    to: 'assigned',
    event: 'order.assigned',
  },
  ready: { from: ['assigned'], to: 'ready_for_pickup', event: 'order.ready_for_pickup' },
  pickup: { from: ['assigned', 'ready_for_pickup'], to: 'picked_up', event: 'order.picked_up' },
  depart: { from: ['picked_up'], to: 'in_transit', event: 'order.in_transit' },
  approach: { from: ['in_transit'], to: 'arriving', event: 'order.arriving' },
  arrive: { from: ['in_transit', 'arriving'], to: 'at_location', event: 'order.at_location' },
  deliver: { from: ['in_transit', 'arriving', 'at_location'], to: 'delivered', event: 'order.delivered' },
  fail: { from: ON_BOARD_STATUSES, to: 'failed', event: 'order.failed' },
  reschedule: { from: ['pending', 'validated', 'assigned', 'failed'], to: 'rescheduled', event: 'order.rescheduled' },
  return: { from: ['failed', 'rescheduled'], to: 'returned', event: 'order.returned' },
  cancel: { from: NON_TERMINAL, to: 'cancelled', event: 'order.cancelled' },
};

/** DESIGN §9: the moves a courier session may run, on its own unfinished orders. */
export const COURIER_MOVES: readonly Action[] = ['ready', 'pickup', 'depart', 'approach', 'arrive', 'deliver', 'fail'];

/** Why a delivery attempt failed: the `reason` of `POST /orders/{id}/fail`. */
export const FAILURE_REASONS = [
  'customer_absent',
  'wrong_address',
  'customer_rejected',
  'package_damaged',
  'unsafe_location',
  'other',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** The moves the table allows from `status`, in the table's order, limited to `only` when given. */
export function allowedMoves(status: OrderStatus, only?: readonly Action[]): Action[] {
  return (Object.keys(TRANSITIONS) as Action[]).filter(
    (a) => TRANSITIONS[a].from.includes(status) && (!only || only.includes(a)),
  );
}
