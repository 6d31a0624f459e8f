import { createHash } from 'node:crypto';
import type { OrderStatus } from '../orders/schemas.js';
import type { PublicTracking } from './public-schemas.js';

/** Every dynamic value goes through this before it reaches the page, attributes included. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const CSS = `:root{--bg:#f3f4f6;--card:#fff;--fg:#111827;--muted:#4b5563;--line:#d1d5db;--accent:#0f766e;--on-accent:#fff;--ring:#99f6e4;--warn:#b45309;--warn-bg:#fffbeb;--test:#7c2d12;--test-bg:#ffedd5}
@media (prefers-color-scheme:dark){:root{--bg:#0b1120;--card:#111827;--fg:#f9fafb;--muted:#9ca3af;--line:#374151;--accent:#2dd4bf;--on-accent:#042f2e;--ring:#134e4a;--warn:#fbbf24;--warn-bg:#292524;--test:#fed7aa;--test-bg:#431407}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:34rem;margin:0 auto;padding:1rem 1rem 2rem}
.testmode{margin:0 0 1rem;padding:.5rem .75rem;border-radius:.5rem;background:var(--test-bg);color:var(--test);font-size:.875rem;font-weight:600;text-align:center}
.brand{display:flex;align-items:center;gap:.5rem;margin:.25rem 0 1rem;color:var(--muted);font-size:.875rem}
.brand strong{color:var(--fg);font-size:1rem}
.card{background:var(--card);border-radius:1rem;padding:1.25rem;box-shadow:0 1px 2px rgba(0,0,0,.06),0 4px 16px rgba(0,0,0,.05);margin-bottom:1rem}
.hello{margin:0;color:var(--muted)}
h1{margin:.125rem 0 .5rem;font-size:1.75rem;line-height:1.2}
h2{margin:0 0 .75rem;font-size:1rem}
.lead{margin:0;color:var(--muted)}
.lead+.lead{margin-top:.75rem}
.eta{display:flex;align-items:baseline;gap:.5rem;margin:1rem 0 0;padding:.75rem 1rem;border-radius:.75rem;background:var(--bg)}
.eta b{font-size:1.25rem;color:var(--accent)}
.steps{display:flex;list-style:none;margin:1.5rem 0 .25rem;padding:0}
.steps li{flex:1;position:relative;padding-top:1.75rem;text-align:center;font-size:.75rem;line-height:1.25;color:var(--muted)}
.steps li::before{content:"";position:absolute;z-index:1;top:0;left:50%;width:1.25rem;height:1.25rem;margin-left:-.625rem;border:2px solid var(--line);border-radius:50%;background:var(--card);color:var(--on-accent);font-size:.75rem;line-height:1rem;text-align:center}
.steps li::after{content:"";position:absolute;top:.5625rem;left:-50%;width:100%;height:2px;background:var(--line)}
.steps li:first-child::after{display:none}
.steps li.done::before{content:"\\2713";border-color:var(--accent);background:var(--accent)}
.steps li.done::after,.steps li.current::after{background:var(--accent)}
.steps li.current{color:var(--fg);font-weight:600}
.steps li.current::before{border-color:var(--accent);box-shadow:0 0 0 4px var(--ring)}
.steps.problem li.current::before{border-color:var(--warn);background:var(--warn);box-shadow:none}
.notice{margin:1rem 0 0;padding:.75rem 1rem;border-left:4px solid var(--warn);border-radius:.25rem;background:var(--warn-bg)}
.courier{display:flex;gap:.75rem;align-items:center}
.courier svg{flex:none}
.courier p{margin:0}
.small{font-size:.875rem;color:var(--muted)}
a{color:var(--accent)}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0}
dt{color:var(--muted)}
dd{margin:0;overflow-wrap:anywhere}
.code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.05em}
.history{list-style:none;margin:0;padding:0}
.history li{position:relative;padding:0 0 .875rem 1.25rem;border-left:2px solid var(--line);margin-left:.375rem}
.history li:last-child{border-left-color:transparent;padding-bottom:0}
.history li::before{content:"";position:absolute;left:-.4375rem;top:.3rem;width:.75rem;height:.75rem;border-radius:50%;background:var(--line)}
.history li:first-child::before{background:var(--accent)}
.history time{display:block;font-size:.875rem;color:var(--muted)}
footer{text-align:center;font-size:.8125rem;color:var(--muted)}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}`;

const STYLE_HASH = createHash('sha256').update(CSS).digest('base64');

/** Nothing may load: no scripts, fonts, frames or remote images; only this page's own stylesheet. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const REFRESH_SECONDS = 60;

const STAGES: { label: string; statuses: OrderStatus[] }[] = [
  { label: 'Ordered', statuses: ['pending', 'validated'] },
  { label: 'Preparing', statuses: ['assigned', 'ready_for_pickup'] },
  { label: 'On the way', statuses: ['picked_up', 'in_transit'] },
  { label: 'Arriving', statuses: ['arriving', 'at_location'] },
  { label: 'Delivered', statuses: ['delivered', 'partially_delivered'] },
];

const stageOf = (s: OrderStatus): number => STAGES.findIndex((st) => st.statuses.includes(s));

const ENDED: OrderStatus[] = ['delivered', 'partially_delivered', 'returned', 'cancelled'];
const PROBLEMS: OrderStatus[] = ['failed', 'rescheduled', 'returned', 'cancelled'];

function lead(t: PublicTracking): string {
  const who = t.courier?.name ? escapeHtml(t.courier.name) : 'Your courier';
  const merchant = escapeHtml(t.merchant.name);
  switch (t.status) {
    case 'pending':
      return `${merchant} has received your order and will prepare it for delivery.`;
    case 'validated':
      return 'Your order is confirmed and will soon be handed to a courier.';
    case 'assigned':
      return 'A courier has been assigned to your delivery.';
    case 'ready_for_pickup':
      return 'Your parcel is packed and waiting for the courier.';
    case 'picked_up':
      return `${who} has collected your parcel.`;
    case 'in_transit':
      return `${who} is on the way to you.`;
    case 'arriving':
      return `${who} is nearly there. Please be ready to receive your parcel.`;
    case 'at_location':
      return `${who} is at the delivery address.`;
    case 'delivered':
      return 'Your parcel has been delivered. Enjoy!';
    case 'partially_delivered':
      return `Part of your order was delivered. ${merchant} will be in touch about the rest.`;
    case 'failed':
      return 'We could not complete the delivery this time. We will try again or get in touch.';
    case 'rescheduled':
      return 'Your delivery has been moved to a new date.';
    case 'returned':
      return `Your parcel was returned to ${merchant}.`;
    case 'cancelled':
      return `This delivery was cancelled. Contact ${merchant} if you have questions.`;
    default:
      return '';
  }
}

function etaText(minutes: number): string {
  if (minutes <= 1) return 'any minute now';
  if (minutes < 60) return `about ${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `about ${h} h` : `about ${h} h ${m} min`;
}

const TIME = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
  timeZone: 'UTC',
});

/** No script runs on the page and the reader's time zone is unknown, so times are shown in UTC. */
const formatTime = (iso: string): string => `${TIME.format(new Date(iso))} UTC`;

const groupCode = (code: string): string => code.replace(/(.{4})(?=.)/g, '$1 ');

function stepper(t: PublicTracking): string {
  let current = stageOf(t.status);
  const problem = current === -1;
  // Off the happy path (failed, cancelled…): show how far the parcel got before it stopped.
  if (problem) current = Math.max(0, ...t.timeline.map((e) => stageOf(e.status)));
  const finished = t.status === 'delivered' || t.status === 'partially_delivered';
  const items = STAGES.map((s, i) => {
    const done = i < current || (finished && i === current);
    const cls = done ? ' class="done"' : i === current ? ' class="current"' : '';
    const state = done ? 'completed' : i === current ? (problem ? 'stopped here' : 'current step') : 'not yet';
    const aria = i === current ? ' aria-current="step"' : '';
    return `<li${cls}${aria}><span class="vh">${state}: </span>${s.label}</li>`;
  });
  return `<ol class="steps${problem ? ' problem' : ''}" aria-label="Delivery progress">${items.join('')}</ol>`;
}

const PIN = `<svg width="40" height="40" viewBox="0 0 40 40" aria-hidden="true"><circle cx="20" cy="20" r="20" fill="#0f766e"/><path d="M20 9a8 8 0 0 0-8 8c0 6 8 14 8 14s8-8 8-14a8 8 0 0 0-8-8zm0 11a3 3 0 1 1 0-6 3 3 0 0 1 0 6z" fill="#fff"/></svg>`;

function courierCard(t: PublicTracking): string {
  const c = t.courier;
  if (!c) return '';
  const name = c.name ? escapeHtml(c.name) : 'Your courier';
  let where = '<p class="small">Live position not available yet.</p>';
  if (c.lat !== null && c.lng !== null) {
    const lat = c.lat.toFixed(5);
    const lng = c.lng.toFixed(5);
    const map = `https://www.openstreetmap.org/?mlat=${lat}&amp;mlon=${lng}#map=16/${lat}/${lng}`;
    where = `<p class="small">Last position ${lat}, ${lng} · <a href="${map}" rel="noopener noreferrer">Open in a map</a></p>`;
  }
  return `<section class="card courier" aria-label="Courier">${PIN}<div><p><strong>${name}</strong> is bringing your parcel</p>${where}</div></section>`;
}

/**
 * Whether the page reloads itself: `none` once the delivery has ended; otherwise the reader chooses.
 * It does not by default: a page that reloads on its own timer moves a screen reader back to the top
 * and a reader who is still reading loses their place (WCAG 2.2.1, axe-core's meta-refresh), so the
 * minute-by-minute reload is a link away (`?updates=auto`) and the page that reloads links back.
 */
export type Updates = 'none' | 'manual' | 'auto';

function updatesNote(updates: Updates): string {
  if (updates === 'auto') return 'This page updates itself every minute. <a href="?">Stop updating</a> · ';
  if (updates === 'manual') return '<a href="?updates=auto">Update this page every minute</a> · ';
  return '';
}

function shell(title: string, body: string, updates: Updates): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
${updates === 'auto' ? `<meta http-equiv="refresh" content="${REFRESH_SECONDS}">\n` : ''}<link rel="icon" href="data:,">
<title>${title}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${body}
<footer><p>${updatesNote(updates)}Delivery tracking by Ruta</p></footer>
</main>
</body>
</html>
`;
}

export function renderTrackingPage(t: PublicTracking, autoUpdate = false): string {
  const merchant = escapeHtml(t.merchant.name);
  const hello = t.customer.first_name ? `Hi ${escapeHtml(t.customer.first_name)}, your parcel is` : 'Your parcel is';
  const status = escapeHtml(t.status_label);
  const eta =
    t.eta_minutes === null
      ? ''
      : `<p class="eta"><span>Estimated arrival</span> <b>${escapeHtml(etaText(t.eta_minutes))}</b></p>`;
  const notice = PROBLEMS.includes(t.status) ? `<p class="notice">${lead(t)}</p>` : '';
  const place = [t.destination.district, t.destination.city].filter((p) => p !== null).map(escapeHtml);
  const history = [...t.timeline]
    .reverse()
    .map(
      (e) =>
        `<li>${escapeHtml(e.label)}<time datetime="${escapeHtml(e.occurred_at)}">${formatTime(e.occurred_at)}</time></li>`,
    )
    .join('');
  const body = `${t.livemode ? '' : '<p class="testmode" role="note">Test mode · this is a test order, no real parcel is on its way</p>'}
<header class="brand"><span>Delivery from</span> <strong>${merchant}</strong></header>
<section class="card" aria-labelledby="status">
<p class="hello">${hello}</p>
<h1 id="status">${status}</h1>
${notice ? '' : `<p class="lead">${lead(t)}</p>`}${notice}${eta}
${stepper(t)}
</section>
${courierCard(t)}
<section class="card" aria-labelledby="details"><h2 id="details">Details</h2><dl>
${place.length ? `<dt>Delivering to</dt><dd>${place.join(', ')}</dd>` : ''}<dt>Tracking code</dt><dd class="code">${escapeHtml(groupCode(t.tracking_code))}</dd>
</dl></section>
<section class="card" aria-labelledby="history"><h2 id="history">History</h2><ol class="history">${history}</ol></section>`;
  const updates: Updates = ENDED.includes(t.status) ? 'none' : autoUpdate ? 'auto' : 'manual';
  return shell(`${status} · ${merchant} delivery`, body, updates);
}

export function renderNotFoundPage(code: string): string {
  const shown = escapeHtml(code.slice(0, 40));
  const body = `<section class="card" aria-labelledby="status">
<h1 id="status">We could not find that parcel</h1>
<p class="lead">No delivery matches the tracking code <span class="code">${shown}</span>.</p>
<p class="lead">Check the code in the message from the shop: it has 12 letters and digits. Letters can be typed in upper or lower case.</p>
</section>`;
  return shell('Parcel not found', body, 'none');
}
