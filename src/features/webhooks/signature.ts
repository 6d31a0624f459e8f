import { createHmac, randomBytes } from 'node:crypto';

/** `whsec_` + 32 random bytes (256 bits), base64url. The whole string, UTF-8, is the HMAC key. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function hmacHex(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/**
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>]`. Per the contract the HMAC covers the raw body only, so
 * `t` is informative and not authenticated; a receiver dedupes on Service-Event-Id instead.
 * During a rotation overlap the old secret's signature follows the new one.
 */
export function signatureHeader(body: string, secrets: string[], nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return [`t=${t}`, ...secrets.map((s) => `v1=${hmacHex(s, body)}`)].join(',');
}
