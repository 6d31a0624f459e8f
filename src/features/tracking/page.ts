import { createHash } from 'node:crypto';
import type { OrderStatus } from '../orders/schemas.js';
import { escapeHtml } from './html.js';
import { type Catalog, catalogOf, fill, LANGUAGES, type Lang } from './i18n/index.js';
import { actionsSection, mapSection, proofSection } from './page-sections.js';
import { CSS } from './page-style.js';
import { NO_ETA_STATUSES, REQUESTED_STATUSES } from './public.js';
import type { PublicTracking } from './public-schemas.js';

const hashOf = (css: string) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
const STYLE_HASH = hashOf(CSS);

/** The page's script and stylesheet (built by Vite, web/track/), and where its map tiles come from. */
export interface PageAssets {
  scripts: string[];
  styles: string[];
  tiles: string;
  /** Origins images may come from besides the page: the tile server and the file links'. */
  imgOrigins: string[];
}

/**
 * Only our own script (no inline code), our stylesheet and the inline styles named by hash (the
 * brand's colours included), images from the tiles and the file links, calls to ourselves only.
 */
export function pageCsp(assets: PageAssets | undefined, brandCss = ''): string {
  const styles = ["'self'", STYLE_HASH, ...(brandCss ? [hashOf(brandCss)] : [])];
  return [
    "default-src 'none'",
    `script-src ${assets?.scripts.length ? "'self'" : "'none'"}`,
    `style-src ${styles.join(' ')}`,
    `img-src 'self' data: ${(assets?.imgOrigins ?? []).join(' ')}`.trim(),
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Relative luminance (WCAG 2.x) of `#rrggbb`. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The brand colour on the header band and the buttons, with whichever text colour reads on it. */
export function brandCss(color: string | null): string {
  if (!color || !/^#[0-9a-fA-F]{6}$/.test(color)) return '';
  const on = luminance(color) > 0.179 ? '#111827' : '#ffffff';
  return `:root{--brand:${color};--on-brand:${on}}`;
}

const STAGE_STATUSES: OrderStatus[][] = [
  ['pending', 'validated'],
  ['assigned', 'ready_for_pickup'],
  ['picked_up', 'in_transit'],
  ['arriving', 'at_location'],
  ['delivered', 'partially_delivered'],
];
const stageOf = (s: OrderStatus): number => STAGE_STATUSES.findIndex((st) => st.includes(s));
const PROBLEMS: OrderStatus[] = ['failed', 'rescheduled', 'returned', 'cancelled'];

/** The zone as people read it: "America/Lima" → "Lima". */
export const zoneName = (tz: string): string => (tz.split('/').pop() ?? tz).replace(/_/g, ' ');

/** Day and time in the delivery's zone, in the page's language. */
export function formatTime(iso: string, tz: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, {
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: tz,
  }).format(new Date(iso));
}

const clockFormats = new Map<string, Intl.DateTimeFormat>();
/** "14:10" in the delivery's zone; formatters are cached (the live stream formats often). */
export function formatClock(iso: string, tz: string, locale: string): string {
  const key = `${locale}|${tz}`;
  let f = clockFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: tz });
    clockFormats.set(key, f);
  }
  return f.format(new Date(iso));
}

/** "14:10–14:40", or "any minute now" when the window has closed in on now. */
export function etaText(t: Pick<PublicTracking, 'eta_window' | 'eta_minutes' | 'timezone'>, w: Catalog): string | null {
  if (t.eta_window === null || t.eta_minutes === null) return null;
  if (t.eta_minutes <= 1) return w.ui.etaNow;
  const from = formatClock(t.eta_window.from, t.timezone, w.locale);
  return `${from}–${formatClock(t.eta_window.to, t.timezone, w.locale)}`;
}

/**
 * The requested day and time window ("Tuesday 14 July, 14:00–18:00"), as the order stores them: a
 * day and times of day in the delivery's zone, which the page names beside them.
 */
export function requestedText(t: Pick<PublicTracking, 'requested'>, w: Catalog): string | null {
  const r = t.requested;
  if (!r) return null;
  const day = r.day
    ? new Intl.DateTimeFormat(w.locale, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' }).format(
        new Date(`${r.day}T12:00:00Z`),
      )
    : null;
  const win = r.time_window;
  if (day && win) return fill(w.ui.dayAndWindow, { day, from: win.start, to: win.end });
  if (win) return fill(w.ui.window, { from: win.start, to: win.end });
  return day;
}

export function stopsText(n: number | null, w: Catalog): string | null {
  if (n === null) return null;
  if (n === 0) return w.ui.stopsBeforeNone;
  return n === 1 ? w.ui.stopsBeforeOne : fill(w.ui.stopsBefore, { n });
}

const groupCode = (code: string): string => code.replace(/(.{4})(?=.)/g, '$1 ');

function stepper(t: PublicTracking, w: Catalog): string {
  let current = stageOf(t.status);
  const problem = current === -1;
  // Off the happy path (failed, cancelled…): show how far the parcel got before it stopped.
  if (problem) current = Math.max(0, ...t.timeline.map((e) => stageOf(e.status)));
  const finished = t.status === 'delivered' || t.status === 'partially_delivered';
  const items = w.stages.map((label, i) => {
    const done = i < current || (finished && i === current);
    const cls = done ? ' class="done"' : i === current ? ' class="current"' : '';
    const state = done
      ? w.ui.stepDone
      : i === current
        ? problem
          ? w.ui.stepStopped
          : w.ui.stepCurrent
        : w.ui.stepLater;
    const aria = i === current ? ' aria-current="step"' : '';
    return `<li${cls}${aria}><span class="vh">${escapeHtml(state)}: </span>${escapeHtml(label)}</li>`;
  });
  return `<ol class="steps${problem ? ' problem' : ''}" aria-label="${escapeHtml(w.ui.progress)}">${items.join('')}</ol>`;
}

const PIN = `<svg width="40" height="40" viewBox="0 0 40 40" aria-hidden="true"><circle cx="20" cy="20" r="20" fill="#0f766e"/><path d="M20 9a8 8 0 0 0-8 8c0 6 8 14 8 14s8-8 8-14a8 8 0 0 0-8-8zm0 11a3 3 0 1 1 0-6 3 3 0 0 1 0 6z" fill="#fff"/></svg>`;

/**
 * Who has the parcel, in words for its status ("Rosa is at your door" once there): only while the
 * parcel is with the courier. Before, no courier is named; after the attempt, the headline and the
 * history say how it ended.
 */
function courierCard(t: PublicTracking, w: Catalog): string {
  const words = (w.courierCard as Partial<Record<string, string>>)[t.status];
  if (!t.courier || words === undefined) return '';
  const line = escapeHtml(fill(words, { name: t.courier.name ?? w.ui.courierAnonymous }));
  return `<section class="card courier" aria-label="${escapeHtml(w.ui.courier)}">${PIN}<p><strong>${line}</strong></p></section>`;
}

function languages(t: PublicTracking, w: Catalog): string {
  const names: Record<Lang, string> = { en: 'English', es: 'Español', pt: 'Português' };
  const links = LANGUAGES.map((l) =>
    l === t.lang
      ? `<li><span aria-current="true" lang="${l}">${names[l]}</span></li>`
      : `<li><a href="?lang=${l}" lang="${l}" hreflang="${l}">${names[l]}</a></li>`,
  );
  return `<nav aria-label="${escapeHtml(w.ui.language)}"><ul class="langs">${links.join('')}</ul></nav>`;
}

function shell(lang: Lang, title: string, body: string, assets?: PageAssets, brand = '', footer = ''): string {
  const styles = (assets?.styles ?? []).map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">\n`).join('');
  const scripts = (assets?.scripts ?? [])
    .map((src) => `<script type="module" src="${escapeHtml(src)}"></script>\n`)
    .join('');
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title}</title>
${styles}<style>${CSS}</style>
${brand ? `<style>${brand}</style>\n` : ''}${scripts}</head>
<body>
${body}
<footer>${footer}</footer>
</body>
</html>
`;
}

/**
 * What the page says on top after a form was sent without the script (the form posts to the page,
 * which answers with a redirect back: `?done=` or `?failed=` names the action): thanks, or that it
 * did not work.
 */
export interface Flash {
  ok: boolean;
  text: string;
}

/** The top note for `?done=`/`?failed=` (an action's name), in the page's words; null for anything else. */
export function flashOf(t: PublicTracking, done: string | undefined, failed: string | undefined): Flash | null {
  const w = catalogOf(t.lang);
  if (failed !== undefined && ACTIONS.includes(failed)) return { ok: false, text: w.ui.failedToSend };
  if (done === 'instructions') return { ok: true, text: w.ui.saved };
  if (done === 'feedback') return { ok: true, text: w.ui.thanks };
  if (done === 'reschedule' && t.requested?.day) {
    const day = new Intl.DateTimeFormat(w.locale, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
    return { ok: true, text: fill(w.ui.rescheduled, { day: day.format(new Date(`${t.requested.day}T12:00:00Z`)) }) };
  }
  return null;
}
const ACTIONS: readonly string[] = ['instructions', 'reschedule', 'feedback'];

/** The whole page, server-rendered in `t.lang`; the script (web/track/) adds the map, the live updates and the forms' sending. */
export function renderTrackingPage(t: PublicTracking, assets?: PageAssets, flash: Flash | null = null): string {
  const w = catalogOf(t.lang);
  const merchant = escapeHtml(t.merchant.name);
  const headline = escapeHtml(
    t.customer.first_name
      ? fill(w.headline[t.status], { name: t.customer.first_name, merchant: t.merchant.name })
      : fill(w.headlineAnonymous[t.status], { merchant: t.merchant.name }),
  );
  const status = escapeHtml(t.status_label);
  // After a failure, why (in the customer's words for the reason); otherwise what is happening now.
  const now = escapeHtml(
    t.failure_reason
      ? w.failure[t.failure_reason]
      : fill(w.now[t.status], { merchant: t.merchant.name, courier: t.courier?.name ?? w.ui.courierAnonymous }),
  );
  // The arrival and the stops before it, while there is an arrival to wait for: not once the
  // courier is at the door, nor after the end (the live script fills and shows them).
  const waiting = !NO_ETA_STATUSES.includes(t.status);
  const eta = etaText(t, w);
  const stops = stopsText(t.stops_before, w);
  const zone = escapeHtml(zoneName(t.timezone));
  const etaBlock = waiting
    ? `<p class="eta" id="eta" data-now="${escapeHtml(w.ui.etaNow)}"${eta === null ? ' hidden' : ''}><span>${escapeHtml(w.ui.eta)}</span> <b id="eta-text">${escapeHtml(eta ?? '')}</b> <span class="small">(${zone})</span></p>`
    : '';
  const stopsBlock = waiting
    ? `<p class="stops" id="stops" data-none="${escapeHtml(w.ui.stopsBeforeNone)}" data-one="${escapeHtml(w.ui.stopsBeforeOne)}" data-many="${escapeHtml(w.ui.stopsBefore)}"${stops === null ? ' hidden' : ''}>${escapeHtml(stops ?? '')}</p>`
    : '';
  const requested = requestedText(t, w);
  // On the way with no arrival estimate yet, the window asked for stands in for it: the live script
  // hides it once an estimate arrives (data-until-eta), and shows it again should the estimate go.
  const untilEta = waiting && !REQUESTED_STATUSES.includes(t.status) ? ' data-until-eta' : '';
  const requestedBlock = requested
    ? `<p class="eta" id="requested"${untilEta}${untilEta && eta !== null ? ' hidden' : ''}><span>${escapeHtml(w.ui.expected)}</span> <b>${escapeHtml(requested)}</b> <span class="small">(${zone})</span></p>`
    : '';
  const problem = PROBLEMS.includes(t.status);
  const place = [t.destination.district, t.destination.city].filter((p) => p !== null).map(escapeHtml);
  const history = [...t.timeline]
    .reverse()
    .map(
      (e) =>
        `<li>${escapeHtml(e.label)}<time datetime="${escapeHtml(e.occurred_at)}">${escapeHtml(formatTime(e.occurred_at, t.timezone, w.locale))}</time></li>`,
    )
    .join('');
  const logo = t.merchant.logo_url ? `<img src="${escapeHtml(t.merchant.logo_url)}" alt="">` : '';
  const body = `<main id="track" data-code="${escapeHtml(t.tracking_code)}" data-lang="${t.lang}" data-locale="${escapeHtml(w.locale)}" data-status="${t.status}">
${t.livemode ? '' : `<p class="testmode" role="note">${escapeHtml(w.ui.testMode)}</p>`}
${flash ? `<p class="flash${flash.ok ? '' : ' fail'}" role="status">${escapeHtml(flash.text)}</p>\n` : ''}<header class="brand">${logo}<span>${escapeHtml(w.ui.from)}</span> <strong>${merchant}</strong></header>
<section class="card" aria-labelledby="status">
<h1 id="status">${headline}</h1>
<p class="${problem ? 'notice' : 'lead'}">${now}</p>${requestedBlock}${etaBlock}${stopsBlock}
${stepper(t, w)}
</section>
<section class="card" aria-labelledby="next"><h2 id="next">${escapeHtml(w.ui.whatNext)}</h2><p class="lead">${escapeHtml(t.next_step)}</p></section>
${mapSection(t, w, assets?.tiles)}${courierCard(t, w)}${actionsSection(t, w)}${proofSection(t, w)}
<section class="card" aria-labelledby="details"><h2 id="details">${escapeHtml(w.ui.details)}</h2><dl>
${place.length ? `<dt>${escapeHtml(w.ui.deliveringTo)}</dt><dd>${place.join(', ')}</dd>` : ''}<dt>${escapeHtml(w.ui.trackingCode)}</dt><dd class="code">${escapeHtml(groupCode(t.tracking_code))}</dd>
</dl></section>
<section class="card" aria-labelledby="history"><h2 id="history">${escapeHtml(w.ui.history)}</h2><p class="small">${escapeHtml(fill(w.ui.timeZone, { zone: t.timezone.replace(/_/g, ' ') }))}</p><ol class="history">${history}</ol></section>
<p class="small" id="live" role="status" data-live="${escapeHtml(w.ui.live)}" data-offline="${escapeHtml(w.ui.offline)}"></p>
</main>`;
  const footer = `${languages(t, w)}<p>${escapeHtml(w.ui.footer)}</p>`;
  return shell(t.lang, `${status} · ${merchant}`, body, assets, brandCss(t.merchant.color), footer);
}

/**
 * A box to type a tracking code in (a plain GET form: `/track?code=…` answers with a redirect to the
 * code's page), on the page of a code that matches nothing and on `/track` itself.
 */
function findForm(w: Catalog, lang: Lang, value = ''): string {
  return `<form class="find" method="get" action="/track" role="search">
<input type="hidden" name="lang" value="${lang}">
<label for="code">${escapeHtml(w.ui.findLabel)}</label>
<input type="text" id="code" name="code" value="${escapeHtml(value)}" required maxlength="40" autocomplete="off" autocapitalize="characters" spellcheck="false" aria-describedby="find-hint">
<button type="submit">${escapeHtml(w.ui.findButton)}</button>
</form>`;
}

/** The language links of a page that has no order (the not-found and the find pages). */
function plainLanguages(lang: Lang, w: Catalog): string {
  const names: Record<Lang, string> = { en: 'English', es: 'Español', pt: 'Português' };
  const links = LANGUAGES.map((l) =>
    l === lang
      ? `<li><span aria-current="true" lang="${l}">${names[l]}</span></li>`
      : `<li><a href="?lang=${l}" lang="${l}" hreflang="${l}">${names[l]}</a></li>`,
  );
  return `<nav aria-label="${escapeHtml(w.ui.language)}"><ul class="langs">${links.join('')}</ul></nav>`;
}

export function renderNotFoundPage(code: string, lang: Lang = 'en'): string {
  const w = catalogOf(lang);
  const typed = code.slice(0, 40);
  const shown = `<span class="code">${escapeHtml(typed)}</span>`;
  const body = `<main><section class="card" aria-labelledby="status">
<h1 id="status">${escapeHtml(w.ui.notFound)}</h1>
<p class="lead">${fill(escapeHtml(w.ui.notFoundLead), { code: shown })}</p>
<p class="lead" id="find-hint">${escapeHtml(w.ui.notFoundHint)}</p>
</section>
<section class="card" aria-labelledby="find-h"><h2 id="find-h">${escapeHtml(w.ui.findTitle)}</h2>
${findForm(w, lang, typed)}
</section></main>`;
  const footer = `${plainLanguages(lang, w)}<p>${escapeHtml(w.ui.footer)}</p>`;
  return shell(lang, escapeHtml(w.ui.notFound), body, undefined, '', footer);
}

/** `/track`: where a customer without a link (or with a cut one) types the code. */
export function renderFindPage(lang: Lang = 'en'): string {
  const w = catalogOf(lang);
  const body = `<main><section class="card" aria-labelledby="status">
<h1 id="status">${escapeHtml(w.ui.findTitle)}</h1>
<p class="lead" id="find-hint">${escapeHtml(w.ui.findLead)}</p>
${findForm(w, lang)}
</section></main>`;
  const footer = `${plainLanguages(lang, w)}<p>${escapeHtml(w.ui.footer)}</p>`;
  return shell(lang, escapeHtml(w.ui.findTitle), body, undefined, '', footer);
}

export { escapeHtml };
