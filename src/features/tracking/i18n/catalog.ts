import type { FailureReason } from '../../lifecycle/transitions.js';
import type { OrderStatus } from '../../orders/schemas.js';

/** The statuses the page shows a courier card in: the parcel is with the courier (public.ts LIVE_STATUSES). */
export type CourierCardStatus = 'picked_up' | 'in_transit' | 'arriving' | 'at_location';

export const LANGUAGES = ['en', 'es', 'pt'] as const;
export type Lang = (typeof LANGUAGES)[number];

/**
 * One language's words for the tracking page. `{name}`-style placeholders are filled by `fill`,
 * after escaping; a catalog holds no HTML.
 */
export interface Catalog {
  /** BCP 47 tag for Intl's dates and times. */
  locale: string;
  status: Record<OrderStatus, string>;
  /**
   * The page's headline, per status: one sentence that greets the customer by `{name}`, and the
   * same sentence without a greeting when the order has no usable first name.
   */
  headline: Record<OrderStatus, string>;
  headlineAnonymous: Record<OrderStatus, string>;
  stages: [string, string, string, string, string];
  /** What is happening now, per status. */
  now: Record<OrderStatus, string>;
  /**
   * The courier card's line, `{name}` the courier's first name (else `ui.courierAnonymous`), per
   * status while the parcel is with the courier (LIVE_STATUSES, the only ones the view names a
   * courier in): no card before, nor once the attempt is over.
   */
  courierCard: Record<CourierCardStatus, string>;
  /** What happens next, in plain words, per status. */
  next: Record<OrderStatus, string>;
  /** Why the last attempt failed, per reason of the fail move, in words for the customer (never the courier's notes). */
  failure: Record<FailureReason, string>;
  ui: Record<UiKey, string>;
}

export type UiKey =
  | 'from'
  | 'testMode'
  | 'eta'
  | 'etaNow'
  | 'stopsBefore'
  | 'stopsBeforeOne'
  | 'stopsBeforeNone'
  | 'expected'
  | 'window'
  | 'dayAndWindow'
  | 'progress'
  | 'stepDone'
  | 'stepCurrent'
  | 'stepStopped'
  | 'stepLater'
  | 'whatNext'
  | 'courier'
  | 'courierAnonymous'
  | 'map'
  | 'mapDestination'
  | 'mapCourier'
  | 'mapNoTiles'
  | 'mapNoTilesDest'
  | 'details'
  | 'deliveringTo'
  | 'trackingCode'
  | 'timeZone'
  | 'history'
  | 'instructions'
  | 'instructionsHint'
  | 'safePlace'
  | 'save'
  | 'saved'
  | 'yourInstructions'
  | 'reschedule'
  | 'rescheduleSend'
  | 'rescheduled'
  | 'rate'
  | 'rating'
  | 'stars'
  | 'chooseRating'
  | 'comment'
  | 'send'
  | 'thanks'
  | 'yourRating'
  | 'failedToSend'
  | 'proof'
  | 'receivedBy'
  | 'proofPhoto'
  | 'live'
  | 'offline'
  | 'footer'
  | 'language'
  | 'notFound'
  | 'notFoundLead'
  | 'notFoundHint'
  | 'findTitle'
  | 'findLead'
  | 'findLabel'
  | 'findButton'
  | 'ratedNext';

/** Replaces `{key}` with the given (already escaped, when bound for HTML) values. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
}
