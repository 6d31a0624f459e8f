import { ApiError } from '../../shared/errors.js';

/** Streams one tracking code may hold at once (a customer's phone and laptop, a shared link). */
export const STREAMS_PER_CODE = 5;

/**
 * The open tracking streams of one instance, counted per code and per client (an IPv4 address or
 * IPv6 /64): a public page needs no key, so these counts are all that keeps one leaked link or one
 * client from holding every stream the instance can keep.
 */
export class StreamCaps {
  private readonly perCode = new Map<string, number>();
  private readonly perClient = new Map<string, number>();

  constructor(private readonly perClientLimit: number) {}

  /** Counts one more stream, or refuses it (429) before anything is written. */
  take(code: string, client: string): void {
    if ((this.perCode.get(code) ?? 0) >= STREAMS_PER_CODE || (this.perClient.get(client) ?? 0) >= this.perClientLimit) {
      throw new ApiError('rate_limited', 'Too many open tracking streams; close one first.', undefined, {
        'Retry-After': '30',
      });
    }
    bump(this.perCode, code, 1);
    bump(this.perClient, client, 1);
  }

  give(code: string, client: string): void {
    bump(this.perCode, code, -1);
    bump(this.perClient, client, -1);
  }
}

function bump(m: Map<string, number>, k: string, by: number): void {
  const n = (m.get(k) ?? 0) + by;
  if (n <= 0) m.delete(k);
  else m.set(k, n);
}
