import { type Static, Type } from 'typebox';
import { Nullable } from '../../shared/params.js';
import { FAILURE_REASONS } from '../lifecycle/transitions.js';
import { OrderStatusSchema } from '../orders/schemas.js';

export const TrackingCodeParams = Type.Object({
  // Deliberately unconstrained: a malformed code is just an unknown parcel (404), never a 422.
  tracking_code: Type.String({ description: 'The 12-character tracking code; case-insensitive' }),
});

// Other query parameters (a shop's utm_… on the link) are ignored, never a 422 on a customer's page.
export const TrackingPageQuery = Type.Object({
  updates: Type.Optional(
    Type.String({
      description: 'Ignored (the page follows the delivery live through its stream); kept so old links still work',
    }),
  ),
  lang: Type.Optional(
    Type.String({ description: '`es`, `en` or `pt`; otherwise Accept-Language decides (English by default)' }),
  ),
  done: Type.Optional(
    Type.String({
      description:
        'Set by the redirect after a form sent without the page\u2019s script: `instructions`, `reschedule` or `feedback`; the page thanks the customer on top',
    }),
  ),
  failed: Type.Optional(
    Type.String({
      description: 'As `done`, for a form that could not be taken: the page says it did not work, to try again',
    }),
  ),
});

/** `/track`: the page where a code is typed. */
export const TrackingFindQuery = Type.Object({
  code: Type.Optional(Type.String({ description: 'The tracking code typed; answered with a redirect to its page' })),
  lang: Type.Optional(
    Type.String({ description: '`es`, `en` or `pt`; otherwise Accept-Language decides (English by default)' }),
  ),
});

// On /track/… as above; on the JSON (/v1/public/tracking/…) an unknown parameter is 422, as on every
// route under /v1 (src/shared/validation.ts, strictQuery).
export const TrackingLangQuery = Type.Object({
  lang: Type.Optional(Type.String({ description: '`es`, `en` or `pt` for the texts; otherwise Accept-Language' })),
});

export const PublicTracking = Type.Object(
  {
    object: Type.Literal('public_tracking'),
    tracking_code: Type.String({ description: 'Canonical (upper-case) tracking code' }),
    livemode: Type.Boolean({ description: 'false for test-mode orders; the page shows a "Test mode" badge' }),
    status: OrderStatusSchema,
    status_label: Type.String({ description: 'Human-readable status, e.g. "On the way"' }),
    lang: Type.Union([Type.Literal('en'), Type.Literal('es'), Type.Literal('pt')], {
      description: 'Language of the texts: `?lang=`, else Accept-Language, else English',
    }),
    next_step: Type.String({ description: 'What happens next, in plain words, in `lang`' }),
    merchant: Type.Object({
      name: Type.String({ description: "The merchant's display name (its brand's, else the account's)" }),
      color: Nullable(Type.String({ description: 'Brand colour, `#rrggbb`' })),
      logo_url: Nullable(Type.String({ description: 'Signed link to the brand logo' })),
    }),
    customer: Type.Object({
      first_name: Nullable(Type.String({ description: 'First word of the customer name; nothing else' })),
    }),
    destination: Type.Object({
      district: Nullable(Type.String()),
      city: Nullable(Type.String()),
      lat: Nullable(Type.Number({ description: 'The delivery point for the map, rounded to about 100 m' })),
      lng: Nullable(Type.Number()),
    }),
    courier: Nullable(
      Type.Object(
        {
          name: Nullable(Type.String({ description: 'First name only' })),
          lat: Nullable(Type.Number()),
          lng: Nullable(Type.Number()),
        },
        {
          description:
            'Only while picked_up, in_transit, arriving or at_location; null otherwise. The position only while the ' +
            'courier is on the way to this stop (in_transit, arriving or at_location with no stop before it).',
        },
      ),
    ),
    eta_minutes: Nullable(
      Type.Integer({
        description:
          'Estimated minutes to arrival; null when unknown, once the courier is at the address, and once the order is finished',
      }),
    ),
    eta_window: Nullable(
      Type.Object(
        { from: Type.String({ format: 'date-time' }), to: Type.String({ format: 'date-time' }) },
        { description: 'Arrival window; it narrows as the courier nears (±25% of the time left, at least ±5 min)' },
      ),
    ),
    stops_before: Nullable(
      Type.Integer({ description: "Unfinished stops before this one on the courier's route; null without a courier" }),
    ),
    requested: Nullable(
      Type.Object(
        {
          day: Nullable(Type.String({ format: 'date', description: 'The requested day, in `timezone`' })),
          time_window: Nullable(
            Type.Object(
              { start: Type.String(), end: Type.String() },
              { description: 'The requested time window, `HH:mm` in `timezone`' },
            ),
          ),
        },
        {
          description:
            'The delivery day and time window asked for, before departure (pending, validated, assigned, ready_for_pickup), once rescheduled, and on the way while there is no `eta_window` yet (picked_up, in_transit, arriving); null otherwise or when the order has neither',
        },
      ),
    ),
    failure_reason: Nullable(
      Type.Enum([...FAILURE_REASONS], {
        description:
          'Why the last attempt failed (the reason of the fail move), while the order is failed; null otherwise. The courier\u2019s notes are never shown',
      }),
    ),
    delivery: Type.Object({
      instructions: Nullable(Type.String({ description: "The customer's own delivery instructions" })),
      safe_place: Nullable(Type.String()),
    }),
    actions: Type.Object(
      {
        instructions: Type.Boolean({
          description: 'Instructions may be given (before departure, and once rescheduled)',
        }),
        reschedule_days: Nullable(
          Type.Array(Type.String({ format: 'date' }), { description: 'Days offered after a failure; null otherwise' }),
        ),
        feedback: Type.Boolean({ description: 'A rating may be given (after delivery, once)' }),
      },
      { description: 'What the customer may do on the page now' },
    ),
    feedback: Nullable(
      Type.Object({ rating: Type.Integer({ minimum: 1, maximum: 5 }), comment: Nullable(Type.String()) }),
    ),
    proof: Nullable(
      Type.Object(
        {
          receiver_name: Nullable(Type.String({ description: 'First name only' })),
          photo_urls: Type.Array(Type.String(), { description: 'Signed links' }),
        },
        { description: 'For 7 days after delivery; null otherwise' },
      ),
    ),
    timezone: Type.String({
      description: 'IANA zone of the delivery (the order\u2019s): the page shows every time in it, named',
    }),
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

export const InstructionsBody = Type.Object(
  {
    instructions: Type.String({ maxLength: 500, description: 'Free text for the courier; empty clears it' }),
    safe_place: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  },
  { additionalProperties: false },
);
export type InstructionsBody = Static<typeof InstructionsBody>;

export const RescheduleBody = Type.Object(
  { day: Type.String({ format: 'date', description: 'One of `actions.reschedule_days`' }) },
  { additionalProperties: false },
);
export type RescheduleBody = Static<typeof RescheduleBody>;

export const FeedbackBody = Type.Object(
  {
    rating: Type.Integer({ minimum: 1, maximum: 5 }),
    comment: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  },
  { additionalProperties: false },
);
export type FeedbackBody = Static<typeof FeedbackBody>;
