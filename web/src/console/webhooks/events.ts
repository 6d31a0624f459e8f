// The events an endpoint can subscribe to (DESIGN §5): the server's own catalog, so the picker
// offers exactly what POST /v1/webhook_endpoints accepts.
export { EVENT_TYPES } from '../../../../src/features/webhooks/event-types.js';
