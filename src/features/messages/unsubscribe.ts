import { createHmac } from 'node:crypto';
import type { AppContext } from '../../shared/context.js';
import { getOrCreateSetting } from '../../shared/db/settings.js';
import { randomToken, safeEqual } from '../../shared/ids.js';
import { instanceKey } from '../../shared/instance.js';

const SETTING = 'messages.unsubscribe_secret';

/** The key that signs unsubscribe links, in `settings` so every instance signs alike. */
class UnsubscribeSecret {
  private value: Promise<string> | undefined;
  constructor(private readonly ctx: AppContext) {}
  get(): Promise<string> {
    this.value ??= getOrCreateSetting(this.ctx.db, SETTING, () => randomToken(48)).catch((err: unknown) => {
      this.value = undefined;
      throw err;
    });
    return this.value;
  }
  close(): void {}
}

const SECRET = instanceKey('messages.unsubscribe-secret', (ctx: AppContext) => new UnsubscribeSecret(ctx));

const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

/**
 * The email's unsubscribe link: `{account}.{address}` in base64url and its HMAC. It never expires
 * (an old email's link must still work) and names one address of one account, nothing else.
 */
export async function unsubscribeUrl(ctx: AppContext, accountId: string, address: string): Promise<string> {
  const payload = Buffer.from(`${accountId}\n${address}`).toString('base64url');
  const token = `${payload}.${mac(await ctx.instance.get(SECRET).get(), payload)}`;
  return `${ctx.config.publicUrl}/v1/unsubscribe?token=${token}`;
}

/** The account and address a token names, or undefined if its signature does not hold. */
export async function readToken(
  ctx: AppContext,
  token: string,
): Promise<{ accountId: string; address: string } | undefined> {
  const [payload, signature] = token.split('.');
  if (!payload || !signature) return undefined;
  if (!safeEqual(mac(await ctx.instance.get(SECRET).get(), payload), signature)) return undefined;
  const [accountId, address] = Buffer.from(payload, 'base64url').toString('utf8').split('\n');
  return accountId && address ? { accountId, address } : undefined;
}
