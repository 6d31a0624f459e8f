import { type Static, Type } from 'typebox';
import { OrderStatusSchema } from '../orders/schemas.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const TrackingCodeParams = Type.Object({
  // Deliberately unconstrained: a malformed code is just an unknown parcel (404), never a 422.
  tracking_code: Type.String({ description: 'The 12-character tracking code; case-insensitive' }),
});

// Other query parameters (a shop's utm_… on the link) are ignored, never a 422 on a customer's page.
export const TrackingPageQuery = Type.Object({
  updates: Type.Optional(
    Type.String({
      description: '`auto`: the page reloads itself every minute until the delivery ends; anything else: it does not',
    }),
  ),
});

export const PublicTracking = Type.Object(
  {
    object: Type.Literal('public_tracking'),
    tracking_code: Type.String({ description: 'Canonical (upper-case) tracking code' }),
    livemode: Type.Boolean({ description: 'false for test-mode orders; the page shows a "Test mode" badge' }),
    status: OrderStatusSchema,
    status_label: Type.String({ description: 'Human-readable status, e.g. "On the way"' }),
    merchant: Type.Object({ name: Type.String() }),
    customer: Type.Object({
      first_name: Nullable(Type.String({ description: 'First word of the customer name; nothing else' })),
    }),
    destination: Type.Object({
      district: Nullable(Type.String()),
      city: Nullable(Type.String()),
    }),
    courier: Nullable(
      Type.Object(
        {
          name: Nullable(Type.String({ description: 'First name only' })),
          lat: Nullable(Type.Number()),
          lng: Nullable(Type.Number()),
        },
        { description: 'Only while picked_up, in_transit, arriving or at_location; null otherwise' },
      ),
    ),
    eta_minutes: Nullable(Type.Integer({ description: 'Estimated minutes to arrival; null when unknown' })),
    timeline: Type.Array(
      Type.Object({
        status: OrderStatusSchema,
        label: Type.String(),
        occurred_at: Type.String({ format: 'date-time' }),
      }),
      { description: 'Oldest first. Positions are never included.' },
    ),
  },
  { $id: 'PublicTracking' },
);
export type PublicTracking = Static<typeof PublicTracking>;
