import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/**
 * `whsec_` + standard base64 of 32 random bytes (256 bits). The whole string, UTF-8, keys v1 and v2
 * (as the spec says: "keyed with the endpoint secret"); the 32 decoded bytes key Standard Webhooks.
 */
export function newSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

export function hmacHex(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data, 'utf8').digest('hex');
}

/**
 * The Standard Webhooks key of a secret: the bytes its part after `whsec_` decodes to, when that
 * part is strict standard base64 (what the `standardwebhooks` and `svix` libraries decode). Every
 * secret made by newSecret qualifies, and so does an older hex-style one (hex is valid base64: its
 * key is the 48 bytes it decodes to, which is exactly what a receiver's library derives from the
 * same string). A secret that is not (an older base64url one with `-` or `_`) has no such key: the
 * receiver's library could not load it either, so the Standard Webhooks header is omitted and v1/v2
 * still sign; rotating the secret gives one that works with both.
 */
export function standardKey(secret: string): Buffer | null {
  if (!secret.startsWith(PREFIX)) return null;
  const rest = secret.slice(PREFIX.length);
  if (rest.length === 0 || rest.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(rest)) return null;
  return Buffer.from(rest, 'base64');
}

/**
 * `t=<unix seconds>,v1=<hex>…,v2=<hex>…`: v1 is HMAC(secret, body), exactly as the spec says, so
 * `t` is not authenticated by it; v2 is HMAC(secret, t + "." + body), which binds the time, so a
 * receiver that checks `t` against its clock (5 minutes) refuses a replayed capture. During a
 * rotation overlap each scheme carries the new secret's signature, then the old one's.
 */
export function signatureHeader(body: string, secrets: string[], nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return [
    `t=${t}`,
    ...secrets.map((s) => `v1=${hmacHex(s, body)}`),
    ...secrets.map((s) => `v2=${hmacHex(s, `${t}.${body}`)}`),
  ].join(',');
}

/**
 * Standard Webhooks `webhook-signature`: `v1,<base64 HMAC-SHA256(key, id.timestamp.body)>` per
 * secret that has a key (see standardKey), space-separated, new before old; null when none has.
 */
export function standardSignature(id: string, body: string, secrets: string[], nowMs: number): string | null {
  const t = Math.floor(nowMs / 1000);
  const parts: string[] = [];
  for (const s of secrets) {
    const key = standardKey(s);
    if (key) parts.push(`v1,${createHmac('sha256', key).update(`${id}.${t}.${body}`, 'utf8').digest('base64')}`);
  }
  return parts.length > 0 ? parts.join(' ') : null;
}
