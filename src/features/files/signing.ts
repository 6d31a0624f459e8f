import { createHmac } from 'node:crypto';
import type { Db } from '../../shared/db/index.js';
import { getOrCreateSetting } from '../../shared/db/settings.js';
import { randomToken, safeEqual } from '../../shared/ids.js';

const SETTING = 'files.link_secret';
const cache = new WeakMap<object, string>();

/** The key that signs file links: kept in `settings`, so every instance behind a load balancer signs alike. */
export async function linkSecret(db: Db): Promise<string> {
  const hit = cache.get(db);
  if (hit) return hit;
  const value = await getOrCreateSetting(db, SETTING, () => randomToken(48));
  cache.set(db, value);
  return value;
}

const mac = (secret: string, id: string, expires: number): string =>
  createHmac('sha256', secret).update(`${id}.${expires}`).digest('hex');

export async function signedUrl(db: Db, baseUrl: string, id: string, ttlSeconds: number): Promise<string> {
  const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
  const signature = mac(await linkSecret(db), id, expires);
  return `${baseUrl}/v1/files/${id}/content?expires=${expires}&signature=${signature}`;
}

export async function verifyLink(db: Db, id: string, expires: number, signature: string): Promise<boolean> {
  const expected = mac(await linkSecret(db), id, expires);
  return safeEqual(expected, signature) && expires >= Math.floor(Date.now() / 1000);
}
