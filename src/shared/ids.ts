import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type IdPrefix = 'acct' | 'ord' | 'cou' | 'rte' | 'we' | 'evt' | 'file' | 'key' | 'del' | 'req' | 'loc';

/** Each 5-bit group of the random bytes becomes one Crockford character. */
function crockford(bytes: Buffer, chars: number): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      bits -= 5;
      out += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

let lastMs = 0;
let counter = 0;

/**
 * Time-ordered, random identifiers (ULID layout: 10 chars of milliseconds + 16 random chars).
 * Within one millisecond a counter in the first random char keeps ids of one process ordered,
 * which keyset pagination over (created_at, id) relies on for stable ordering.
 */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  if (now === lastMs) counter++;
  else {
    lastMs = now;
    counter = 0;
  }
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const seq = CROCKFORD[Math.min(counter, 31)];
  return `${prefix}_${time}${seq}${crockford(randomBytes(10), 15)}`;
}

/** 12 Crockford characters = 60 random bits: public, so it must not be guessable. */
export function newTrackingCode(): string {
  return crockford(randomBytes(8), 12);
}

/** Crockford decoding is forgiving: lower case, I/L for 1 and O for 0 all mean the same code. */
export function normalizeTrackingCode(input: string): string | undefined {
  const s = input.toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
  return /^[0-9A-HJKMNP-TV-Z]{12}$/.test(s) ? s : undefined;
}

export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length)) {
      // 62 * 4 = 248: rejecting bytes >= 248 keeps every character equally likely.
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

export function sha256Hex(input: string | Buffer): string {
  return createHash('sha256').update(input).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
