import type { AppContext } from '../../shared/context.js';
import type { Executor } from '../../shared/db/index.js';
import type { JobsTable, Mode } from '../../shared/db/schema.js';
import {
  MESSAGE_CHANNELS,
  MESSAGE_LOCALES,
  type MessageChannel,
  type MessageLocale,
  type MessageProvider,
  type MessageTrigger,
} from '../../shared/db/tables/messages.js';
import { newId } from '../../shared/ids.js';
import { jobRow } from '../../shared/jobs/job.js';
import { atLocalTime, localClock, localDay } from '../../shared/local-time.js';
import { accountById } from '../accounts/service.js';
import { e164, emailKey } from './addresses.js';
import * as repo from './repo.js';
import { countSegments } from './segments.js';
import { inQuietHours, type MessageSettings, QUIET_HOURS_EXEMPT, templateFor, withDefaults } from './settings.js';
import { FAILURE_WORDS, render, type TemplateValues } from './templates.js';

/** The send job's kind name and attempts (the kind itself, with its handler, is in send.ts). */
export const MESSAGE_SEND = { kind: 'message.send', maxAttempts: 8 } as const;

/** What a message needs to know of its order: a plain shape, so orders and lifecycle can both pass theirs. */
export interface MessageOrder {
  id: string;
  account_id: string;
  mode: Mode;
  tracking_code: string;
  customer: { name: string; phone?: string; whatsapp?: string; email?: string; locale?: string };
  timezone: string;
  time_window: { start: string; end: string } | null;
  courier_name: string | null;
  failure_reason: string | null;
  delivery_pin?: string | null;
}

/** Facts of the move that the texts use (the ETA of a departure). */
export interface MoveFacts {
  etaMinutes?: number | null;
}

/**
 * Messages to write with a move or a create, and the one job that sends the queued ones (null when
 * none is queued). One job per (order, trigger), not one per message: a job row and its indexes
 * cost a create about as much as a message row (BENCHMARKS.md, "Messages: one send job per
 * order"). The job lists its messages in its payload (`sendJob`); a retry is per message.
 */
export interface Prepared {
  rows: repo.MessageRow[];
  job: JobsTable | null;
}

export const NOTHING: Prepared = { rows: [], job: null };

/** The job that sends `ids` (messages of one order and trigger, all due at `runAt`). */
export function sendJob(ids: string[], now: number, runAt: number): JobsTable {
  return jobRow(MESSAGE_SEND, { payload: ids, now, runAt });
}

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

/** Which provider a channel uses in this deployment (DESIGN §14): `log` when none is configured. */
export function providerFor(ctx: AppContext, channel: MessageChannel): MessageProvider {
  const m = ctx.config.messaging;
  if (channel === 'email') return m.smtp ? 'smtp' : 'log';
  if (channel === 'sms') return m.twilio?.smsFrom ? 'twilio' : 'log';
  if (m.meta) return 'meta';
  return m.twilio?.whatsappFrom ? 'twilio' : 'log';
}

const firstWord = (s: string | null | undefined): string => (s ?? '').trim().split(/\s+/)[0] ?? '';

/** An hour's window from the ETA, its start rounded down to a quarter hour, as local `HH:mm`. */
function etaWindow(now: number, minutes: number, tz: string): { start: string; end: string } {
  const quarter = 15 * 60_000;
  const start = Math.floor((now + minutes * 60_000) / quarter) * quarter;
  return { start: localClock(start, tz), end: localClock(start + 60 * 60_000, tz) };
}

/** The next end of quiet hours after `now`, in the zone: when a deferred message goes. */
function quietEnd(now: number, q: { start: string; end: string }, tz: string): number {
  const today = localDay(now, tz);
  const at = atLocalTime(today, q.end, tz);
  return at > now ? at : atLocalTime(localDay(now + 24 * 3600_000, tz), q.end, tz);
}

export function localeOf(order: MessageOrder, s: MessageSettings): MessageLocale {
  const l = order.customer.locale;
  return (MESSAGE_LOCALES as readonly string[]).includes(l ?? '') ? (l as MessageLocale) : s.locale;
}

export interface RenderInput {
  settings: MessageSettings;
  carrierName: string;
  merchantName: string;
  publicUrl: string;
}

/** The body with every occurrence of the PIN blanked. */
export function maskPin(body: string, pin: string): string | null {
  return body.includes(pin) ? body.split(pin).join('••••') : null;
}

/**
 * The window a message promises: an hour from the ETA when one is known (the courier shares its
 * position), else the order's own time window, else the next three hours from now.
 */
function windowOf(order: MessageOrder, facts: MoveFacts, now: number): { start: string; end: string } {
  if (facts.etaMinutes != null) return etaWindow(now, facts.etaMinutes, order.timezone);
  if (order.time_window) return order.time_window;
  const quarter = 15 * 60_000;
  const start = Math.floor(now / quarter) * quarter;
  return { start: localClock(start, order.timezone), end: localClock(start + 3 * 3600_000, order.timezone) };
}

export function valuesFor(order: MessageOrder, r: RenderInput, locale: MessageLocale, facts: MoveFacts, now: number) {
  const eta = windowOf(order, facts, now);
  const values: TemplateValues = {
    customer_first_name: firstWord(order.customer.name),
    merchant_name: r.merchantName,
    carrier_name: r.carrierName,
    tracking_url: `${r.publicUrl}/track/${order.tracking_code}`,
    eta_start: eta.start,
    eta_end: eta.end,
    pin: order.delivery_pin ?? '',
    courier_first_name: firstWord(order.courier_name),
    failure_reason: order.failure_reason ? (FAILURE_WORDS[locale][order.failure_reason] ?? order.failure_reason) : '',
  };
  return values;
}

/**
 * The messages a trigger asks for, one per channel turned on in the account's settings, rendered
 * now in the customer's locale and the order's zone. Suppressed ones are written too, with their
 * reason (no valid address, test mode); quiet hours defer a message (it stays queued, its job due
 * at their end). Reads only: the caller writes the result in its transaction. Opt-outs are not
 * read here: the send job reads them right before each send (an address may opt out while a
 * message waits), so a read here too would only record `opted_out` a moment sooner, at the cost
 * of a query on every create and move.
 */
export async function prepareMessages(
  ctx: AppContext,
  order: MessageOrder,
  trigger: MessageTrigger,
  facts: MoveFacts,
  now: number,
  known?: { own: MessageSettings; carrierName: string },
): Promise<Prepared> {
  const { own: settings, carrierName } = known ?? (await settingsFor(ctx.db, order.account_id));
  const channels = MESSAGE_CHANNELS.filter((c) => settings.triggers[trigger][c]);
  if (channels.length === 0) return NOTHING;
  const account = await accountById(ctx, order.account_id);
  const locale = localeOf(order, settings);
  const values = valuesFor(
    order,
    { settings, carrierName, merchantName: account?.name ?? '', publicUrl: ctx.config.publicUrl },
    locale,
    facts,
    now,
  );
  // Parsing a number is most of what a message costs a create (libphonenumber's metadata checks),
  // so only the channels turned on are read, and the WhatsApp number, which is the phone unless the
  // customer gave another, is not parsed twice.
  const who = order.customer;
  const phone = channels.some(
    (ch) => ch === 'sms' || (ch === 'whatsapp' && (!who.whatsapp || who.whatsapp === who.phone)),
  )
    ? e164(who.phone, settings.default_country)
    : null;
  const addresses = new Map<MessageChannel, string | null>();
  for (const ch of channels) {
    if (ch === 'email') addresses.set(ch, emailKey(who.email));
    else if (ch === 'sms' || !who.whatsapp || who.whatsapp === who.phone) addresses.set(ch, phone);
    else addresses.set(ch, e164(who.whatsapp, settings.default_country));
  }
  const quiet =
    !QUIET_HOURS_EXEMPT.includes(trigger) && inQuietHours(settings.quiet_hours, localClock(now, order.timezone));
  const rows: repo.MessageRow[] = [];
  const queued: string[] = [];
  for (const channel of channels) {
    const to = addresses.get(channel) ?? null;
    const tpl = templateFor(settings, trigger, channel, locale);
    const body = render(tpl.body, values, locale);
    let status: repo.MessageRow['status'] = 'queued';
    let reason: string | null = null;
    if (to === null) [status, reason] = ['suppressed', channel === 'email' ? 'no_email' : 'no_valid_phone'];
    else if (order.mode === 'test') [status, reason] = ['suppressed', 'test_mode'];
    else if (quiet) reason = 'quiet_hours';
    const row: repo.MessageRow = {
      id: newId('msg', now),
      account_id: order.account_id,
      mode: order.mode,
      order_id: order.id,
      trigger,
      channel,
      to_address: to,
      locale,
      subject: tpl.subject === undefined ? null : render(tpl.subject, values, locale),
      body,
      // The carrier's people read this one (GET /v1/messages, the events they see): the PIN is the customer's.
      body_masked: order.delivery_pin ? maskPin(body, order.delivery_pin) : null,
      status,
      reason,
      provider: order.mode === 'test' ? 'log' : providerFor(ctx, channel),
      provider_message_id: null,
      segments: channel === 'email' ? 0 : countSegments(body).segments,
      attempts: 0,
      send_started_at: null,
      last_error: null,
      created_at: now,
      updated_at: now,
      sent_at: null,
      delivered_at: null,
    };
    rows.push(row);
    if (status === 'queued') queued.push(row.id);
  }
  if (queued.length === 0) return { rows, job: null };
  const runAt = quiet && settings.quiet_hours ? quietEnd(now, settings.quiet_hours, order.timezone) : now;
  return { rows, job: sendJob(queued, now, runAt) };
}
