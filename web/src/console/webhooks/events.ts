/**
 * The events an endpoint can subscribe to (DESIGN §5), as the server's catalog EVENT_TYPES in
 * src/features/webhooks/schemas.ts lists them. The web build imports nothing of that module (it
 * pulls in TypeBox), so the list is repeated here; test/webhook-ops.test.ts fails if they differ.
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
] as const;
