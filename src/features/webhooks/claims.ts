import { randomBytes } from 'node:crypto';
import type { Db, Engine } from '../../shared/db/index.js';
import * as repo from './repo.js';

/** Beyond the send's own budget, so a lease never runs out while its attempt is still running. */
export const LEASE_MARGIN_MS = 15_000;

export type DeliveryContext = { event: repo.DeliveryEvent; endpoint: repo.EndpointRow };

export interface Claimed {
  /** As claimed: `attempts` already counts this attempt (see repo.claimDue). */
  delivery: repo.DeliveryRow;
  /** Its event's bytes and its endpoint, loaded for the whole batch after the claim. */
  context: Promise<DeliveryContext | Error>;
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
   * Claims up to `limit` due deliveries, skipping saturated endpoints. Returns as soon as the claim
   * commits, with each context still loading, so the caller reserves its slots before any other
   * await and a concurrent wake cannot over-claim.
   */
  async claim(now: number, limit: number, excludeEndpoints: string[]): Promise<Claimed[]> {
    const claimed = await repo.claimDue(this.db, this.engine, {
      owner: this.owner,
      now,
      leaseUntil: now + this.leaseMs,
      limit,
      excludeEndpoints,
    });
    if (claimed.length === 0) return [];
    const contexts = repo.deliveryContexts(this.db, claimed).catch((err: Error) => err);
    return claimed.map((delivery) => ({
      delivery,
      context: contexts.then((c) => {
        if (c instanceof Error) return c;
        const event = c.events.get(delivery.event_id);
        const endpoint = c.endpoints.get(delivery.endpoint_id);
        return event && endpoint
          ? { event, endpoint }
          : new Error(`delivery ${delivery.id}: event or endpoint missing`);
      }),
    }));
  }

  /** Hands back leases still held (on shutdown), so another worker need not wait for them to expire. */
  release(ids: string[]): Promise<void> {
    return repo.releaseLeases(this.db, this.owner, ids);
  }
}
