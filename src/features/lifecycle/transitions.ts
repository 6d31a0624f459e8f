import type { OrderStatus } from '../orders/schemas.js';

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

const NON_TERMINAL: readonly OrderStatus[] = [
  'pending',
  'validated',
  'assigned',
  'ready_for_pickup',
  'picked_up',
  'in_transit',
  'arriving',
  'at_location',
  'failed',
  'rescheduled',
];

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
  fail: { from: ['picked_up', 'in_transit', 'arriving', 'at_location'], to: 'failed', event: 'order.failed' },
  reschedule: { from: ['pending', 'validated', 'assigned', 'failed'], to: 'rescheduled', event: 'order.rescheduled' },
  return: { from: ['failed', 'rescheduled'], to: 'returned', event: 'order.returned' },
  cancel: { from: NON_TERMINAL, to: 'cancelled', event: 'order.cancelled' },
};
