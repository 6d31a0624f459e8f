import type { AppContext } from '../../shared/context.js';
import type { Executor } from '../../shared/db/index.js';
import { MESSAGE_LOCALES, type MessageLocale } from '../../shared/db/tables/messages.js';
import { localClock } from '../../shared/local-time.js';
import { e164, emailKey } from './addresses.js';
import type { MessageOrder } from './repo.js';
import * as repo from './repo.js';
import { countSegments, gsm7Words } from './segments.js';
import { type MessageSettings, templateFor, withDefaults } from './settings.js';
import { FAILURE_WORDS, render, type TemplateValues } from './templates.js';

export type { MessageOrder } from './repo.js';

/**
 * What a move knew that its order may not keep until the message is rendered (at its send, which
 * quiet hours can put off until the next morning): the departure's ETA, the courier who moved it,
 * the reason of the failed attempt. Stored with the message (`facts`, JSON); a create has none.
 */
export interface MoveFacts {
  eta_minutes?: number | null;
  courier_name?: string | null;
  failure_reason?: string | null;
  /** Who took the parcel (the deliver move's proof): the delivered message names them. */
  receiver_name?: string | null;
}

/** A message's rendered part: written when it is sent or suppressed at send, rendered on read before. */
export type Content = Pick<repo.MessageRow, 'to_address' | 'subject' | 'body' | 'body_masked' | 'segments'> & {
  body: string;
  segments: number;
  /** Why it cannot be sent: the order has no valid address for its channel. */
  unaddressed: 'no_valid_phone' | 'no_email' | null;
};

/** The settings in force for an account: its own, else the carrier's defaults, else the shipped ones. */
export async function settingsFor(
  db: Executor,
  accountId: string,
): Promise<{ own: MessageSettings; carrierName: string }> {
  const stored = await repo.settingsOf(db, [accountId, repo.CARRIER]);
  const carrier = withDefaults(stored.get(repo.CARRIER));
  const own = stored.has(accountId) ? withDefaults(stored.get(accountId)) : carrier;
  return { own, carrierName: carrier.sender_name ?? 'Ruta' };
}

export function localeOf(order: MessageOrder, s: MessageSettings): MessageLocale {
  const l = order.customer.locale;
  return (MESSAGE_LOCALES as readonly string[]).includes(l ?? '') ? (l as MessageLocale) : s.locale;
}

const firstWord = (s: string | null | undefined): string => (s ?? '').trim().split(/\s+/)[0] ?? '';

/** An hour's window from the ETA, its start rounded down to a quarter hour, as local `HH:mm`. */
function etaWindow(at: number, minutes: number, tz: string): { start: string; end: string } {
  const quarter = 15 * 60_000;
  const start = Math.floor((at + minutes * 60_000) / quarter) * quarter;
  return { start: localClock(start, tz), end: localClock(start + 60 * 60_000, tz) };
}

/**
 * The window a message promises: an hour from the ETA when one is known (the courier shares its
 * position), else the order's own time window, else the next three hours from the move.
 */
function windowOf(order: MessageOrder, facts: MoveFacts, at: number): { start: string; end: string } {
  if (facts.eta_minutes != null) return etaWindow(at, facts.eta_minutes, order.timezone);
  if (order.time_window) return order.time_window;
  const quarter = 15 * 60_000;
  const start = Math.floor(at / quarter) * quarter;
  return { start: localClock(start, order.timezone), end: localClock(start + 3 * 3600_000, order.timezone) };
}

/** A failure's reason in the customer's words; in an SMS without the accents GSM-7 lacks (segments.ts). */
export function reasonWords(reason: string, locale: MessageLocale, channel: repo.MessageRow['channel']): string {
  const words = FAILURE_WORDS[locale][reason] ?? reason;
  return channel === 'sms' ? gsm7Words(words) : words;
}

/** The body with every occurrence of the PIN blanked. */
export function maskPin(body: string, pin: string): string | null {
  return body.includes(pin) ? body.split(pin).join('••••') : null;
}

export interface Names {
  settings: MessageSettings;
  carrierName: string;
  merchantName: string;
  publicUrl: string;
}

/** The message a move asked for, as it reads now: `at` is the move's time (the message's created_at). */
export interface Asked {
  trigger: repo.MessageRow['trigger'];
  channel: repo.MessageRow['channel'];
  locale: MessageLocale;
  created_at: number;
  facts: MoveFacts | null;
}

/** Renders and addresses one message: the same code for the send, a read of a queued one and a test-mode move. */
export function contentOf(order: MessageOrder, m: Asked, n: Names): Content {
  const facts = m.facts ?? {};
  const courier = facts.courier_name !== undefined ? facts.courier_name : order.courier_name;
  const failure = facts.failure_reason !== undefined ? facts.failure_reason : order.failure_reason;
  const eta = windowOf(order, facts, m.created_at);
  const values: TemplateValues = {
    customer_first_name: firstWord(order.customer.name),
    merchant_name: n.merchantName,
    carrier_name: n.carrierName,
    tracking_url: `${n.publicUrl}/track/${order.tracking_code}`,
    eta_start: eta.start,
    eta_end: eta.end,
    pin: order.delivery_pin ?? '',
    courier_first_name: firstWord(courier),
    failure_reason: failure ? reasonWords(failure, m.locale, m.channel) : '',
    // The first word, as the tracking page names the receiver: the deliver move's (a test-mode
    // message is rendered before its proof is stored), else the proof's (a message written before
    // moves kept it).
    receiver_name: firstWord(facts.receiver_name ?? order.receiver_name),
  };
  const tpl = templateFor(n.settings, m.trigger, m.channel, m.locale);
  const body = render(tpl.body, values, m.locale);
  const who = order.customer;
  const country = n.settings.default_country;
  const to =
    m.channel === 'email'
      ? emailKey(who.email)
      : e164(m.channel === 'whatsapp' && who.whatsapp ? who.whatsapp : who.phone, country);
  return {
    to_address: to,
    subject: tpl.subject === undefined ? null : render(tpl.subject, values, m.locale),
    body,
    // The carrier's people read this one (GET /v1/messages, the events they see): the PIN is the customer's.
    body_masked: order.delivery_pin ? maskPin(body, order.delivery_pin) : null,
    segments: m.channel === 'email' ? 0 : countSegments(body).segments,
    unaddressed: to !== null ? null : m.channel === 'email' ? 'no_email' : 'no_valid_phone',
  };
}

/** The stored facts of a message (its `facts` column). */
export function factsOf(m: repo.MessageRow): MoveFacts | null {
  return m.facts === null ? null : (JSON.parse(m.facts) as MoveFacts);
}

/**
 * The content of messages not rendered yet (body null), by message id, from their orders as they
 * are now and the account's settings in force: what their send would write. Rows already rendered
 * are left out. `db`: the caller's transaction, if any (SQLite has one connection).
 */
export async function renderPending(
  ctx: AppContext,
  db: Executor,
  rows: readonly repo.MessageRow[],
): Promise<Map<string, Content>> {
  const out = new Map<string, Content>();
  const pending = rows.filter((r) => r.body === null);
  if (pending.length === 0) return out;
  const orders = await repo.messageOrders(db, [...new Set(pending.map((r) => r.order_id))]);
  const merchants = await repo.accountNames(db, [...new Set(pending.map((r) => r.account_id))]);
  const names = new Map<string, Names>();
  for (const m of pending) {
    const order = orders.get(m.order_id);
    if (!order) continue;
    let n = names.get(m.account_id);
    if (!n) {
      const { own, carrierName } = await settingsFor(db, m.account_id);
      n = {
        settings: own,
        carrierName,
        merchantName: merchants.get(m.account_id) ?? '',
        publicUrl: ctx.config.publicUrl,
      };
      names.set(m.account_id, n);
    }
    out.set(m.id, contentOf(order, { ...m, facts: factsOf(m) }, n));
  }
  return out;
}

/** The row as the API shows it: a message not rendered yet reads as its send would write it. */
export function withContent(m: repo.MessageRow, c: Content | undefined): repo.MessageRow {
  if (!c || m.body !== null) return m;
  const { unaddressed: _, ...content } = c;
  return { ...m, ...content };
}
