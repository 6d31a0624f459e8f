import type { AppContext } from '../../shared/context.js';
import type { Tx } from '../../shared/db/index.js';
import type { MessageProvider } from '../../shared/db/tables/messages.js';
import {
  type Job,
  type JobFailure,
  type JobHandler,
  type JobKind,
  type JobRun,
  jobRow,
  signalJobs,
} from '../../shared/jobs/job.js';
import { insertJob, insertJobs } from '../../shared/jobs/repo.js';
import { signalQueued } from '../webhooks/outbox.js';
import { type Content, renderPending } from './content.js';
import { recordMessageEvent } from './events.js';
import { logProvider } from './providers/log.js';
import { metaProvider } from './providers/meta.js';
import { smtpProvider } from './providers/smtp.js';
import { twilioProvider } from './providers/twilio.js';
import type { Outbound, Provider, SendResult } from './providers/types.js';
import { type GroupPayload, MESSAGE_SEND, sendJob, settingsFor } from './queue.js';
import * as repo from './repo.js';
import { unsubscribeUrl } from './unsubscribe.js';

/** DESIGN §14: a provider that keeps answering 429/5xx is retried for up to 6 hours, then the message fails. */
export const RETRY_FOR_MS = 6 * 3600_000;
/** Waits between tries: 30 s, 2 min, 10 min, 30 min, then hourly. */
const BACKOFF_S = [30, 120, 600, 1800, 3600];
const backoffMs = (attempts: number) => 1000 * (BACKOFF_S[Math.min(attempts, BACKOFF_S.length) - 1] ?? 30);

/**
 * Sends the messages of one order and trigger (their ids in the payload, in order), or one message
 * whose send is retried (`ref` is its id); a job of several orders written together (queue.ts,
 * `groupSendJobs`) is replaced by one job per order when first claimed. A message is sent by one
 * job at a time (the lease), and the job is written with the message, so a message is never lost
 * between its write and its send.
 * Before the provider is called the message is marked `send_started_at` (committed); a worker that
 * finds the mark left by one that died asks the provider whether it has the message (Twilio's list;
 * SMTP resends with the same Message-ID) before sending again. Each message's outcome commits on its
 * own while the lease is still ours (with the job's completion for a retry), so a job taken over
 * after a crash skips the messages already sent. A retry (429, 5xx, network) gets a job of its own
 * and the message is marked `retrying`: the job that listed it leaves it to that one from then on.
 */
export const MESSAGE_SEND_JOB: JobKind = {
  ...MESSAGE_SEND,
  // A provider call is bounded by its 10 s timeout; renewed every 10 s while one is in flight.
  leaseMs: 30_000,
  concurrency: (config) => config.messaging.concurrency,
  handler: (ctx) => new MessageSend(ctx),
};

class MessageSend implements JobHandler {
  private readonly providers = new Map<MessageProvider, Provider>();

  constructor(private readonly ctx: AppContext) {}

  private provider(name: MessageProvider): Provider {
    let p = this.providers.get(name);
    if (p) return p;
    const m = this.ctx.config.messaging;
    const host = new URL(this.ctx.config.publicUrl).hostname;
    if (name === 'smtp' && m.smtp) p = smtpProvider(m.smtp, host);
    else if (name === 'twilio' && m.twilio) p = twilioProvider(m.twilio);
    else if (name === 'meta' && m.meta) p = metaProvider(m.meta);
    else p = logProvider(this.ctx.logger);
    this.providers.set(name, p);
    return p;
  }

  async run(job: Job, run: JobRun): Promise<void> {
    if (job.ref !== null) return this.sendOne(job.ref, run, (work) => run.complete(work), false);
    const payload = parsed(job);
    if (!Array.isArray(payload)) {
      // A group of orders' job (queue.ts, groupSendJobs): replaced by a job per order, which this
      // and other workers then take up side by side, as if each order had been written alone.
      const now = this.ctx.clock();
      const own = payload.orders.map((ids) => sendJob(ids, now, now));
      await run.complete((trx) => insertJobs(trx, own));
      signalJobs(this.ctx);
      return;
    }
    for (const id of payload) {
      run.signal.throwIfAborted();
      await this.sendOne(id, run, (work) => run.step(work), true);
    }
  }

  /** `commit` writes the outcome under the lease; `inList`: the job lists several messages (it is not a retry's). */
  private async sendOne(id: string, run: JobRun, commit: JobRun['step'], inList: boolean): Promise<void> {
    const { ctx } = this;
    const stored = await repo.messageById(ctx.db, id);
    if (stored?.status !== 'queued') return;
    // Handed to its own retry job by an earlier attempt of this one.
    if (inList && stored.reason === 'retrying') return;
    // Rendered now, from the order as it is (content.ts); written with whatever this send records
    // first, and kept from then on: a retry, or a worker taking over, sends the same text.
    const { msg, content } = await this.rendered(stored);
    if (content?.unaddressed) {
      await commit((trx) =>
        this.settle(trx, msg, { status: 'suppressed', reason: content.unaddressed as string }, content),
      );
      return;
    }
    if (msg.to_address === null || msg.body === null) return;
    if (await repo.isOptedOut(ctx.db, msg.account_id, msg.to_address)) {
      await commit((trx) => this.settle(trx, msg, { status: 'suppressed', reason: 'opted_out' }, content));
      return;
    }
    const provider = this.provider(msg.provider);
    const out = await this.outbound(msg, msg.body);
    if (msg.send_started_at !== null && provider.find) {
      // A worker died during this message's provider call: the provider may have it already.
      const found = await provider.find(out, run.signal);
      if (found) {
        await commit((trx) => this.sent(trx, msg, found));
        return;
      }
      if (found === undefined) throw new Error('the provider could not say whether it has the message yet');
    }
    if (!(await repo.markSending(ctx.db, msg.id, ctx.clock(), content && stripped(content)))) return;
    const result = await provider.send(out, run.signal);
    await commit((trx) => this.record(trx, { ...msg, attempts: msg.attempts + 1 }, result));
    // A failure wrote message.failed: this instance's webhook dispatcher may have work.
    if (!result.ok) signalQueued(ctx);
  }

  /** The message with its content: stored, or rendered now (`content`: to be written). */
  private async rendered(msg: repo.MessageRow): Promise<{ msg: repo.MessageRow; content: Content | null }> {
    if (msg.body !== null) return { msg, content: null };
    const content = (await renderPending(this.ctx, this.ctx.db, [msg])).get(msg.id);
    if (!content) throw new Error(`message ${msg.id}: its order ${msg.order_id} is gone`);
    return { msg: { ...msg, ...stripped(content) }, content };
  }

  private async outbound(msg: repo.MessageRow, body: string): Promise<Outbound> {
    const { own, carrierName } = await settingsFor(this.ctx.db, msg.account_id);
    const base = this.ctx.config.publicUrl;
    return {
      id: msg.id,
      channel: msg.channel,
      to: msg.to_address ?? '',
      subject: msg.subject,
      body,
      locale: msg.locale,
      senderName: own.sender_name ?? carrierName,
      unsubscribeUrl:
        msg.channel === 'email' ? await unsubscribeUrl(this.ctx, msg.account_id, msg.to_address ?? '') : '',
      statusCallback: `${base}/v1/providers/twilio/status`,
      whatsappTemplate: own.whatsapp_templates[msg.trigger] ?? null,
      createdAt: msg.created_at,
    };
  }

  private async record(trx: Tx, msg: repo.MessageRow, r: SendResult): Promise<void> {
    const now = this.ctx.clock();
    if (r.ok) return this.sent(trx, msg, r.providerId);
    if (r.retry && now - msg.created_at < RETRY_FOR_MS) {
      // Without an answer the provider may have it: the mark stays, so the next try asks first.
      await repo.updateMessage(trx, msg.id, {
        last_error: r.error,
        reason: 'retrying',
        send_started_at: r.ambiguous ? (msg.send_started_at ?? now) : null,
        updated_at: now,
      });
      await insertJob(trx, jobRow(MESSAGE_SEND, { ref: msg.id, now, runAt: now + backoffMs(msg.attempts) }));
      return;
    }
    await this.settle(trx, msg, {
      status: 'failed',
      reason: r.retry ? 'provider_unavailable' : 'provider_rejected',
      error: r.error,
    });
  }

  private async sent(trx: Tx, msg: repo.MessageRow, providerId: string): Promise<void> {
    const now = this.ctx.clock();
    await repo.updateMessage(
      trx,
      msg.id,
      {
        status: 'sent',
        reason: null,
        provider_message_id: providerId,
        sent_at: now,
        send_started_at: null,
        updated_at: now,
      },
      ['queued'],
    );
  }

  private async settle(
    trx: Tx,
    msg: repo.MessageRow,
    o: { status: 'failed' | 'suppressed'; reason: string; error?: string },
    content?: Content | null,
  ): Promise<void> {
    const now = this.ctx.clock();
    const row = await repo.updateMessage(
      trx,
      msg.id,
      {
        ...(content ? stripped(content) : {}),
        status: o.status,
        reason: o.reason,
        last_error: o.error ?? msg.last_error,
        send_started_at: null,
        updated_at: now,
      },
      ['queued'],
    );
    if (row && o.status === 'failed') await recordMessageEvent(trx, 'message.failed', row, now);
  }

  async failed(trx: Tx, job: Job, failure: JobFailure) {
    const reason = failure.reason === 'interrupted' ? 'interrupted' : 'error';
    let settled = false;
    for (const id of job.ref !== null ? [job.ref] : listed(job)) {
      const stored = await repo.messageById(trx, id);
      if (stored?.status !== 'queued' || (job.ref === null && stored.reason === 'retrying')) continue;
      // A failed message keeps the text it would have had (message.failed carries it).
      const content = stored.body === null ? (await renderPending(this.ctx, trx, [stored])).get(id) : undefined;
      await this.settle(trx, stored, { status: 'failed', reason }, content);
      settled = true;
    }
    return settled ? () => signalQueued(this.ctx) : undefined;
  }
}

/** What of a message's content is stored (its columns). */
function stripped(c: Content): Omit<Content, 'unaddressed'> {
  const { unaddressed: _, ...columns } = c;
  return columns;
}

/** A send job's payload: its messages' ids, or a group of orders' (queue.ts). */
function parsed(job: Job): string[] | GroupPayload {
  return job.payload === null ? [] : (JSON.parse(job.payload) as string[] | GroupPayload);
}

/** The messages a send job lists, a group's included. */
function listed(job: Job): string[] {
  const payload = parsed(job);
  return Array.isArray(payload) ? payload : payload.orders.flat();
}
