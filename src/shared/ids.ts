import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type IdPrefix =
  | 'acct'
  | 'ord'
  | 'cou'
  | 'rte'
  | 'we'
  | 'evt'
  | 'file'
  | 'key'
  | 'del'
  | 'req'
  | 'loc'
  | 'usr'
  | 'ses'
  | 'inv'
  | 'csc'
  | 'cse'
  | 'whatt'
  | 'imp'
  | 'dep'
  | 'rplan';

/**
 * Random bytes are drawn from a pool refilled 4 KiB at a time: one `randomFillSync` per ~500 ids
 * instead of one `randomBytes` call (and Buffer) per id. Bytes are never handed out twice, and
 * they come from the same CSPRNG.
 */
const POOL = Buffer.allocUnsafe(4096);
let poolOffset = POOL.length;

function take(n: number): number {
  if (poolOffset + n > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += n;
  return at;
}

/** `chars` (≤ 6) Crockford characters from the low 5 × chars bits of `value`. */
function crockford(value: number, chars: number): string {
  let out = '';
  for (let i = chars - 1; i >= 0; i--) out += CROCKFORD[(value >>> (i * 5)) & 31];
  return out;
}

/** 12 Crockford characters = 60 random bits, from 8 pooled bytes (the low 2 bits of each half are dropped). */
function random60(): string {
  const at = take(8);
  return crockford(POOL.readUInt32BE(at) >>> 2, 6) + crockford(POOL.readUInt32BE(at + 4) >>> 2, 6);
}

const COUNTER_MAX = 2 ** 20 - 1;
let lastMs = -1;
let counter = 0;
let lastTime = '';

/**
 * Time-ordered, random identifiers, 26 characters after the prefix: 10 characters of milliseconds,
 * 4 of a per-millisecond counter (20 bits) and 12 random (60 bits). Ids made by one process are
 * strictly increasing (keyset pagination over (created_at, id) relies on stable order within a
 * millisecond): within a millisecond the counter counts up, and a clock that steps back, or a
 * million ids in one millisecond, borrow the next millisecond as ULID's monotonic mode does.
 */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
    lastTime = '';
  } else if (counter < COUNTER_MAX) counter++;
  else {
    lastMs++;
    counter = 0;
    lastTime = '';
  }
  if (lastTime === '') {
    let t = lastMs;
    for (let i = 0; i < 10; i++) {
      lastTime = CROCKFORD[t % 32] + lastTime;
      t = Math.floor(t / 32);
    }
  }
  return `${prefix}_${lastTime}${crockford(counter, 4)}${random60()}`;
}

/** 12 Crockford characters = 60 random bits: public, so it must not be guessable. */
export function newTrackingCode(): string {
  return random60();
}

/** Crockford decoding is forgiving: lower case, I/L for 1 and O for 0 all mean the same code. */
export function normalizeTrackingCode(input: string): string | undefined {
  const s = input.toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
  return /^[0-9A-HJKMNP-TV-Z]{12}$/.test(s) ? s : undefined;
}

export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const at = take(length);
    for (const b of POOL.subarray(at, at + length)) {
      // 62 * 4 = 248: rejecting bytes >= 248 keeps every character equally likely.
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
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
