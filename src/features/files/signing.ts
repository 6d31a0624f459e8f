import { createHmac } from 'node:crypto';
import type { AppContext } from '../../shared/context.js';
import { getOrCreateSetting } from '../../shared/db/settings.js';
import { randomToken, safeEqual } from '../../shared/ids.js';
import { instanceKey } from '../../shared/instance.js';

const SETTING = 'files.link_secret';

/**
 * The key that signs file links: kept in `settings`, so every instance behind a load balancer signs
 * alike, and read once per app instance (not per process: two apps in one process each read it).
 */
class LinkSecret {
  private value: Promise<string> | undefined;

  constructor(private readonly ctx: AppContext) {}

  get(): Promise<string> {
    this.value ??= getOrCreateSetting(this.ctx.db, SETTING, () => randomToken(48)).catch((err: unknown) => {
      // A failed read (the database was away) is not remembered: the next link reads again.
      this.value = undefined;
      throw err;
    });
    return this.value;
  }

  close(): void {}
}

export const LINK_SECRET = instanceKey('files.link-secret', (ctx: AppContext) => new LinkSecret(ctx));

const mac = (secret: string, id: string, expires: number): string =>
  createHmac('sha256', secret).update(`${id}.${expires}`).digest('hex');

const nowSeconds = (ctx: AppContext): number => Math.floor(ctx.clock() / 1000);

export async function signedUrl(ctx: AppContext, id: string, ttlSeconds: number): Promise<string> {
  const expires = nowSeconds(ctx) + ttlSeconds;
  const signature = mac(await ctx.instance.get(LINK_SECRET).get(), id, expires);
  return `${ctx.config.publicUrl}/v1/files/${id}/content?expires=${expires}&signature=${signature}`;
}

export async function verifyLink(ctx: AppContext, id: string, expires: number, signature: string): Promise<boolean> {
  const expected = mac(await ctx.instance.get(LINK_SECRET).get(), id, expires);
  return safeEqual(expected, signature) && expires >= nowSeconds(ctx);
}
