import { createHmac } from 'node:crypto';
import type { AppContext } from '../../shared/context.js';
import type { MessageProvider } from '../../shared/db/tables/messages.js';
import { safeEqual } from '../../shared/ids.js';
import { signalQueued } from '../webhooks/outbox.js';
import { e164 } from './addresses.js';
import { recordMessageEvent } from './events.js';
import * as repo from './repo.js';

/**
 * Twilio's request signature (https://www.twilio.com/docs/usage/security): HMAC-SHA1 keyed with
 * the Auth Token over the full URL Twilio called, followed, for a form POST, by every parameter's
 * name and value with the names sorted; base64. `url` must be the URL as configured at Twilio
 * (our RUTA_PUBLIC_URL + path), not what a proxy made of it.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, k) => acc + k + params[k], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

export function checkTwilio(ctx: AppContext, url: string, params: Record<string, string>, header: unknown): boolean {
  const tw = ctx.config.messaging.twilio;
  if (!tw || typeof header !== 'string') return false;
  return safeEqual(twilioSignature(tw.authToken, url, params), header);
}

/** Meta's `X-Hub-Signature-256`: `sha256=` and the hex HMAC-SHA256 of the raw body, keyed with the app secret. */
export function checkMeta(ctx: AppContext, rawBody: string, header: unknown): boolean {
  const secret = ctx.config.messaging.meta?.appSecret;
  if (!secret || typeof header !== 'string') return false;
  const expected = `sha256=${createHmac('sha256', secret).update(Buffer.from(rawBody, 'utf8')).digest('hex')}`;
  return safeEqual(expected, header);
}

/** A provider's status word, mapped to ours: only the final ones change a message. */
export type FinalStatus = { status: 'delivered' } | { status: 'failed'; reason: string };

/**
 * Records a provider's final word on a message (delivered, or failed with its code) and writes
 * message.delivered / message.failed in the same transaction. Statuses arrive out of order (a
 * `sent` after a `delivered`), so only a message still queued or sent moves.
 */
export async function applyStatus(
  ctx: AppContext,
  provider: MessageProvider,
  providerId: string,
  s: FinalStatus,
): Promise<boolean> {
  const msg = await repo.messageByProviderId(ctx.db, provider, providerId);
  if (!msg) return false;
  const now = ctx.clock();
  const changed = await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.updateMessage(
      trx,
      msg.id,
      s.status === 'delivered'
        ? { status: 'delivered', delivered_at: now, updated_at: now }
        : { status: 'failed', reason: s.reason, updated_at: now },
      ['queued', 'sent'],
    );
    if (!row) return false;
    await recordMessageEvent(trx, s.status === 'delivered' ? 'message.delivered' : 'message.failed', row, now);
    return true;
  });
  if (changed) signalQueued(ctx);
  return changed;
}

/** DESIGN §14: these words opt a number out of an account's messages; START opts it back in. */
export const STOP_WORDS = new Set(['STOP', 'BAJA', 'PARAR', 'UNSUBSCRIBE', 'STOPALL', 'CANCEL', 'END', 'QUIT']);
export const START_WORDS = new Set(['START', 'UNSTOP', 'ALTA']);

/**
 * An inbound message from a customer's number. The carrier's number is shared by its accounts, so
 * STOP opts the number out of every account that has written to it (what the customer means: no
 * more of these), and START back in.
 */
export async function inbound(ctx: AppContext, from: string, text: string): Promise<'opted_out' | 'opted_in' | null> {
  const word = text
    .trim()
    .toUpperCase()
    .replace(/[^A-Z]/g, '');
  const stop = STOP_WORDS.has(word);
  if (!stop && !START_WORDS.has(word)) return null;
  const number = e164(from.replace(/^whatsapp:/, ''), null);
  if (!number) return null;
  const now = ctx.clock();
  const accounts = await repo.accountsThatWrote(ctx.db, number);
  await ctx.db.transaction().execute(async (trx) => {
    for (const a of accounts) {
      if (stop) await repo.optOut(trx, a, number, word, now);
      else await repo.optIn(trx, a, number);
    }
  });
  return stop ? 'opted_out' : 'opted_in';
}
