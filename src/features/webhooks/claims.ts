import { randomBytes } from 'node:crypto';
import type { Db, Engine } from '../../shared/db/index.js';
import { claimDue, type DeliveryEvent, type SendingEndpoint } from './claim-repo.js';
import * as repo from './repo.js';

/** Beyond the send's own budget, so a lease never runs out while its attempt is still running. */
export const LEASE_MARGIN_MS = 15_000;

export type DeliveryContext = { event: DeliveryEvent; endpoint: SendingEndpoint };

export interface Claimed {
  /** As claimed: `attempts` already counts this attempt (see claimDue). */
  delivery: repo.DeliveryRow;
  /** Its event's bytes and its endpoint, read with the claim. */
  context: DeliveryContext | Error;
}

/**
 * Claiming and leases for one dispatcher. A claim leases due deliveries to `owner` until
 * `now + leaseMs`; a crashed worker's leases simply expire and the rows are claimed again, and the
 * attempt count taken with each claim means a takeover continues it (Service-Attempt 2, not 1 again).
 */
export class Leases {
  readonly owner = `wkr_${randomBytes(8).toString('hex')}`;

  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
    private readonly leaseMs: number,
  ) {}

  /**
   * Claims up to `limit` due deliveries, skipping saturated endpoints, with what their sends need.
   * The caller reserves its slots right after this one await, so a concurrent wake cannot over-claim.
   */
  async claim(now: number, limit: number, excludeEndpoints: string[]): Promise<Claimed[]> {
    const claimed = await claimDue(this.db, this.engine, {
      owner: this.owner,
      now,
      leaseUntil: now + this.leaseMs,
      limit,
      excludeEndpoints,
    });
    return claimed.map(({ delivery, event, endpoint }) => ({
      delivery,
      context:
        event && endpoint ? { event, endpoint } : new Error(`delivery ${delivery.id}: event or endpoint missing`),
    }));
  }

  /** Hands back leases still held (on shutdown), so another worker need not wait for them to expire; `unsent`: never attempted. */
  release(ids: string[], unsent = false): Promise<void> {
    return repo.releaseLeases(this.db, this.owner, ids, unsent);
  }
}
