import type { AppContext } from '../../shared/context.js';
import type { JobsTable } from '../../shared/db/schema.js';
import {
  MESSAGE_CHANNELS,
  type MessageChannel,
  type MessageProvider,
  type MessageTrigger,
} from '../../shared/db/tables/messages.js';
import { newId } from '../../shared/ids.js';
import { jobRow } from '../../shared/jobs/job.js';
import { atLocalTime, localClock, localDay } from '../../shared/local-time.js';
import { accountById } from '../accounts/service.js';
import { contentOf, localeOf, type MessageOrder, type MoveFacts, type Names, settingsFor } from './content.js';
import type * as repo from './repo.js';
import { inQuietHours, type MessageSettings, QUIET_HOURS_EXEMPT } from './settings.js';

export { type MessageOrder, type MoveFacts, settingsFor } from './content.js';

/** The send job's kind name and attempts (the kind itself, with its handler, is in send.ts). */
export const MESSAGE_SEND = { kind: 'message.send', maxAttempts: 8 } as const;

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

/** The messages of `p` its job sends. */
const queuedOf = (p: Prepared) => p.rows.filter((r) => r.status === 'queued').map((r) => r.id);

/** A group send job's payload: each order's queued message ids, apart (`groupSendJobs`). */
export interface GroupPayload {
  orders: string[][];
}

/**
 * The send jobs of orders written together (a group of creates under load, an import's batch):
 * one job per due time listing each order's messages apart, instead of a job per order. The worker
 * that claims it replaces it with the orders' own jobs in the transaction that completes it
 * (send.ts), so each order's messages then travel exactly as a lone create's do. With the shipped
 * settings (one email per order) the job row was half of what notifications cost a create
 * (BENCHMARKS.md, "Messages with the default settings"); alone, an order keeps its own job.
 */
export function groupSendJobs(prepared: readonly Prepared[]): JobsTable[] {
  // Due at once (0), or at the end of quiet hours (that time): each order was prepared at its own
  // instant, so "at once" is not one run_at.
  const byDue = new Map<number, Prepared[]>();
  for (const p of prepared) {
    if (!p.job) continue;
    const due = p.job.run_at > p.job.created_at ? p.job.run_at : 0;
    const group = byDue.get(due);
    if (group) group.push(p);
    else byDue.set(due, [p]);
  }
  const jobs: JobsTable[] = [];
  for (const group of byDue.values()) {
    const own = group.map((p) => p.job as JobsTable);
    if (own.length === 1) {
      jobs.push(own[0] as JobsTable);
      continue;
    }
    const payload: GroupPayload = { orders: group.map(queuedOf) };
    const runAt = Math.min(...own.map((j) => j.run_at));
    jobs.push(jobRow(MESSAGE_SEND, { payload, now: (own[0] as JobsTable).created_at, runAt }));
  }
  return jobs;
}

/** Which provider a channel uses in this deployment (DESIGN §14): `log` when none is configured. */
export function providerFor(ctx: AppContext, channel: MessageChannel): MessageProvider {
  const m = ctx.config.messaging;
  if (channel === 'email') return m.smtp ? 'smtp' : 'log';
  if (channel === 'sms') return m.twilio?.smsFrom ? 'twilio' : 'log';
  if (m.meta) return 'meta';
  return m.twilio?.whatsappFrom ? 'twilio' : 'log';
}

/** The next end of quiet hours after `now`, in the zone: when a deferred message goes. */
function quietEnd(now: number, q: { start: string; end: string }, tz: string): number {
  const today = localDay(now, tz);
  const at = atLocalTime(today, q.end, tz);
  return at > now ? at : atLocalTime(localDay(now + 24 * 3600_000, tz), q.end, tz);
}

/** The facts worth storing: what the move says that the order may not keep; null when none. */
function storedFacts(order: MessageOrder, trigger: MessageTrigger, facts: MoveFacts): string | null {
  if (trigger === 'order_confirmed') return null;
  const f: MoveFacts = {};
  if (facts.eta_minutes != null) f.eta_minutes = facts.eta_minutes;
  if (order.courier_name) f.courier_name = order.courier_name;
  if (order.failure_reason) f.failure_reason = order.failure_reason;
  if (facts.receiver_name) f.receiver_name = facts.receiver_name;
  return Object.keys(f).length === 0 ? null : JSON.stringify(f);
}

/**
 * The messages a trigger asks for, one per channel turned on in the account's settings, and the
 * job that sends the queued ones. Reads only: the caller writes the result in its transaction.
 *
 * What a row gets here is what exactly-once, the list and the job need (ids, order, trigger,
 * channel, locale, provider, status); its text, address and segments are rendered by its send job
 * (content.ts, written then, and rendered the same way on read until then). Rendering and the
 * phone's parse were half of what messages cost a create (BENCHMARKS.md, "Messages rendered at
 * send"). Decided here, since they are cheap and must hold from the move on: test mode (such a
 * message is never sent, so it is rendered and suppressed now, as before) and quiet hours (the
 * job's due time). An order without a valid address is suppressed by the job (`no_valid_phone`,
 * `no_email`), and opt-outs are read by the job right before each send.
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
  const locale = localeOf(order, settings);
  const test = order.mode === 'test';
  let names: Names | undefined;
  if (test) {
    const account = await accountById(ctx, order.account_id);
    names = {
      settings,
      carrierName,
      merchantName: account?.brand_name ?? account?.name ?? '',
      publicUrl: ctx.config.publicUrl,
    };
  }
  const quiet =
    !test &&
    !QUIET_HOURS_EXEMPT.includes(trigger) &&
    inQuietHours(settings.quiet_hours, localClock(now, order.timezone));
  const stored = storedFacts(order, trigger, facts);
  const rows: repo.MessageRow[] = [];
  const queued: string[] = [];
  for (const channel of channels) {
    const row: repo.MessageRow = {
      id: newId('msg', now),
      account_id: order.account_id,
      mode: order.mode,
      order_id: order.id,
      trigger,
      channel,
      to_address: null,
      locale,
      subject: null,
      body: null,
      body_masked: null,
      status: 'queued',
      reason: quiet ? 'quiet_hours' : null,
      provider: test ? 'log' : providerFor(ctx, channel),
      provider_message_id: null,
      segments: null,
      attempts: 0,
      send_started_at: null,
      last_error: null,
      created_at: now,
      updated_at: now,
      sent_at: null,
      delivered_at: null,
      facts: stored,
    };
    if (names) {
      // Test mode: nothing leaves the machine, so the message is final now, written whole.
      const { unaddressed, ...content } = contentOf(order, { ...row, facts }, names);
      Object.assign(row, content, { status: 'suppressed', reason: unaddressed ?? 'test_mode' });
    }
    rows.push(row);
    if (row.status === 'queued') queued.push(row.id);
  }
  if (queued.length === 0) return { rows, job: null };
  const runAt = quiet && settings.quiet_hours ? quietEnd(now, settings.quiet_hours, order.timezone) : now;
  return { rows, job: sendJob(queued, now, runAt) };
}
