import { escapeHtml } from './html.js';
import { type Catalog, fill } from './i18n/index.js';
import { NO_MAP_STATUSES } from './public.js';
import type { PublicTracking } from './public-schemas.js';

const point = (lat: number | null | undefined, lng: number | null | undefined): string =>
  typeof lat === 'number' && typeof lng === 'number' ? `${lat.toFixed(5)},${lng.toFixed(5)}` : '';

/**
 * The map's place and what the script needs to draw it: the tiles, the destination and the
 * courier (only when the view shows its position). Hidden until the script draws it; with no
 * tiles the pins still say where the parcel goes (and where the courier is, when it is shown: the
 * note names the courier's pin only then). Once the attempt is over (delivered, failed, returned,
 * cancelled) there is nothing to follow on a map, and none is drawn.
 */
export function mapSection(t: PublicTracking, w: Catalog, tiles: string | undefined): string {
  const dest = point(t.destination.lat, t.destination.lng);
  if (!tiles || !dest || NO_MAP_STATUSES.includes(t.status)) return '';
  const courier = point(t.courier?.lat, t.courier?.lng);
  const note = courier ? w.ui.mapNoTiles : w.ui.mapNoTilesDest;
  return `<section class="card" id="map-card" aria-labelledby="map-h" hidden><h2 id="map-h">${escapeHtml(w.ui.map)}</h2>
<div id="map" data-tiles="${escapeHtml(tiles)}" data-dest="${dest}" data-courier="${courier}" data-dest-label="${escapeHtml(w.ui.mapDestination)}" data-courier-label="${escapeHtml(w.ui.mapCourier)}"></div>
<p class="small map-note" id="map-note" data-both="${escapeHtml(w.ui.mapNoTiles)}" data-dest="${escapeHtml(w.ui.mapNoTilesDest)}" hidden>${escapeHtml(note)}</p></section>
`;
}

/**
 * A customer's form: without the script it posts to the page itself, which answers with a redirect
 * back to the page (public-routes.ts, the `do` field names the action); the script sends the same
 * fields as JSON to `/track/{code}/{action}` instead (web/src/track/main.ts) and leaves `do` out.
 */
function formOpen(t: PublicTracking, action: string, extra = ''): string {
  const code = escapeHtml(t.tracking_code);
  return `<form method="post" action="/track/${code}?lang=${t.lang}" data-action="${action}"${extra}>
<input type="hidden" name="do" value="${action}">`;
}

function message(w: Catalog, ok: string): string {
  return `<p class="form-msg" role="status" data-ok="${escapeHtml(ok)}" data-fail="${escapeHtml(w.ui.failedToSend)}"></p>`;
}

function instructionsForm(t: PublicTracking, w: Catalog): string {
  return `<section class="card" aria-labelledby="instr-h"><h2 id="instr-h">${escapeHtml(w.ui.instructions)}</h2>
${formOpen(t, 'instructions')}
<p class="small" id="instr-hint">${escapeHtml(w.ui.instructionsHint)}</p>
<textarea id="instr" name="instructions" maxlength="500" aria-labelledby="instr-h" aria-describedby="instr-hint">${escapeHtml(t.delivery.instructions ?? '')}</textarea>
<label for="safe">${escapeHtml(w.ui.safePlace)}</label>
<input type="text" id="safe" name="safe_place" maxlength="200" value="${escapeHtml(t.delivery.safe_place ?? '')}">
<button type="submit">${escapeHtml(w.ui.save)}</button>
${message(w, w.ui.saved)}</form></section>
`;
}

function rescheduleForm(t: PublicTracking, w: Catalog, days: string[]): string {
  const fmt = new Intl.DateTimeFormat(w.locale, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
  const choices = days
    .map(
      (d) =>
        `<label class="choice"><input type="radio" name="day" value="${escapeHtml(d)}" required> ${escapeHtml(fmt.format(new Date(`${d}T12:00:00Z`)))}</label>`,
    )
    .join('');
  return `<section class="card" aria-labelledby="resch-h"><h2 id="resch-h">${escapeHtml(w.ui.reschedule)}</h2>
${formOpen(t, 'reschedule')}
<fieldset><legend class="vh">${escapeHtml(w.ui.reschedule)}</legend>${choices}</fieldset>
<button type="submit">${escapeHtml(w.ui.rescheduleSend)}</button>
${message(w, w.ui.rescheduled)}</form></section>
`;
}

/**
 * The rating: no star is chosen for the customer. The stars are one radio group (arrow keys move
 * and choose), required; "Send rating" stays disabled, with a line saying why, until one is
 * chosen (data-wait: the script disables it at once and enables it then, web/src/track/main.ts).
 * The page's own HTML leaves it enabled: without the script, the required group is what keeps an
 * empty rating from being sent, and a disabled button would never let the customer rate.
 */
function feedbackForm(t: PublicTracking, w: Catalog): string {
  const stars = [1, 2, 3, 4, 5]
    .map(
      (n) =>
        `<label class="choice"><input type="radio" name="rating" value="${n}" required> <span aria-hidden="true">${'★'.repeat(n)}</span><span class="vh">${escapeHtml(fill(w.ui.stars, { n }))}</span></label>`,
    )
    .join('');
  return `<section class="card" aria-labelledby="rate-h"><h2 id="rate-h">${escapeHtml(w.ui.rate)}</h2>
${formOpen(t, 'feedback', ' data-wait="rating"')}
<fieldset role="radiogroup" aria-required="true" aria-describedby="rate-hint"><legend>${escapeHtml(w.ui.rating)}</legend>${stars}</fieldset>
<label for="comment">${escapeHtml(w.ui.comment)}</label>
<textarea id="comment" name="comment" maxlength="1000"></textarea>
<p class="small form-hint" id="rate-hint">${escapeHtml(w.ui.chooseRating)}</p>
<button type="submit" aria-describedby="rate-hint">${escapeHtml(w.ui.send)}</button>
${message(w, w.ui.thanks)}</form></section>
`;
}

/** The forms the status allows now, and what the customer already said. */
export function actionsSection(t: PublicTracking, w: Catalog): string {
  let out = '';
  if (t.actions.instructions) out += instructionsForm(t, w);
  else if (t.delivery.instructions || t.delivery.safe_place) {
    const parts = [t.delivery.instructions, t.delivery.safe_place].filter((p): p is string => !!p).map(escapeHtml);
    out += `<section class="card" aria-labelledby="instr-h"><h2 id="instr-h">${escapeHtml(w.ui.yourInstructions)}</h2><p class="lead">${parts.join(' · ')}</p></section>\n`;
  }
  if (t.actions.reschedule_days?.length) out += rescheduleForm(t, w, t.actions.reschedule_days);
  if (t.actions.feedback) out += feedbackForm(t, w);
  else if (t.feedback) {
    const c = t.feedback.comment ? `<p class="lead">${escapeHtml(t.feedback.comment)}</p>` : '';
    out += `<section class="card" aria-labelledby="rate-h"><h2 id="rate-h">${escapeHtml(fill(w.ui.yourRating, { n: t.feedback.rating }))}</h2>${c}</section>\n`;
  }
  return out;
}

/** The receiver's first name and the photos, while the view has them (7 days after delivery). */
export function proofSection(t: PublicTracking, w: Catalog): string {
  if (!t.proof) return '';
  const who = t.proof.receiver_name
    ? `<p class="lead">${escapeHtml(fill(w.ui.receivedBy, { name: t.proof.receiver_name }))}</p>`
    : '';
  const photos = t.proof.photo_urls
    .map((u) => `<img src="${escapeHtml(u)}" alt="${escapeHtml(w.ui.proofPhoto)}" loading="lazy">`)
    .join('');
  return `<section class="card proof" aria-labelledby="proof-h"><h2 id="proof-h">${escapeHtml(w.ui.proof)}</h2>${who}${photos}</section>\n`;
}
