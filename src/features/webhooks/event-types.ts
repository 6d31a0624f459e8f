/**
 * Every event a merchant can subscribe to: the spec's seven, cancel, and the other lifecycle moves.
 * Pure data in a module of its own, so the web console imports the same list (its event picker)
 * without pulling in TypeBox.
 */
export const EVENT_TYPES = [
  'order.created',
  'order.assigned',
  'order.picked_up',
  'order.in_transit',
  'order.delivered',
  'order.failed',
  'order.returned',
  'order.cancelled',
  'order.validated',
  'order.ready_for_pickup',
  'order.arriving',
  'order.at_location',
  'order.partially_delivered',
  'order.rescheduled',
  'settlement.issued',
  // A customer message's final word from its provider (DESIGN §14): data.message is the message.
  'message.delivered',
  'message.failed',
  // Written by the customer on the tracking page (DESIGN §15); no status change.
  'order.instructions_updated',
  'order.rated',
  // The delivery PIN (DESIGN §14): locked by its fifth wrong try, overridden by a dispatcher.
  'order.pin_locked',
  'order.pin_overridden',
] as const;
