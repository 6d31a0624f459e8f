import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto';

// The reading rule is pure, shared with the courier app; its home is tracking-code.ts.
export { normalizeTrackingCode } from './tracking-code.js';

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
  | 'pwr'
  | 'csc'
  | 'cse'
  | 'whatt'
  | 'imp'
  | 'dep'
  | 'rplan'
  | 'job'
  | 'cho'
  | 'cres'
  | 'stl'
  | 'sli'
  | 'msg';

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

/**
 * The time-ordered part of ids: 10 characters of milliseconds and 4 of a per-millisecond counter
 * (20 bits). Within a millisecond the counter counts up, and a clock that steps back, or a million
 * ids in one millisecond, borrow the next millisecond as ULID's monotonic mode does, so the ids one
 * sequence makes are strictly increasing.
 */
export class IdSequence {
  private lastMs = -1;
  private counter = 0;
  /** lastMs in Crockford characters, computed once per millisecond. */
  private lastTime = '';

  /** The 14 time-ordered characters of the next id made at `now` (epoch ms). */
  next(now: number): string {
    if (now > this.lastMs) {
      this.lastMs = now;
      this.counter = 0;
      this.lastTime = '';
    } else if (this.counter < COUNTER_MAX) this.counter++;
    else {
      this.lastMs++;
      this.counter = 0;
      this.lastTime = '';
    }
    if (this.lastTime === '') {
      let t = this.lastMs;
      for (let i = 0; i < 10; i++) {
        this.lastTime = CROCKFORD[t % 32] + this.lastTime;
        t = Math.floor(t / 32);
      }
    }
    return this.lastTime + crockford(this.counter, 4);
  }
}

/**
 * The process's sequence. Deliberately one per process, not per app instance: ids made by one
 * process are strictly increasing whichever instance made them (keyset pagination over
 * (created_at, id) relies on a stable order within a millisecond), and a sequence holds nothing
 * an instance could leak to another (no data, no connection).
 */
const PROCESS_SEQUENCE = new IdSequence();

/**
 * Time-ordered, random identifiers, 26 characters after the prefix: 14 from `sequence` (the
 * millisecond `now`, from ctx.clock, and a counter) and 12 random (60 bits). Tests pass their own
 * sequence to start from a known state.
 */
export function newId(prefix: IdPrefix, now: number, sequence: IdSequence = PROCESS_SEQUENCE): string {
  return `${prefix}_${sequence.next(now)}${random60()}`;
}

/** 12 Crockford characters = 60 random bits: public, so it must not be guessable. */
export function newTrackingCode(): string {
  return random60();
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
