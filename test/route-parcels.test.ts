import { describe, expect, it } from 'vitest';
import { isMissing, parcelsOf } from '../web/src/console/routes/parcels.js';

/**
 * How the console's Routes page and route page count a route's parcels and what is missing
 * (docs/labels.md): one count for both pages, a pair's pickup not a parcel of its own, a finished
 * stop never missing.
 */
describe('a route’s parcels in the console', () => {
  const stop = (order: string, over: Record<string, unknown> = {}) => ({
    position: 1,
    order,
    kind: 'delivery' as const,
    tracking_code: order.toUpperCase(),
    status: 'assigned' as const,
    address: { address: 'Calle 1' },
    on_route: true,
    loaded_at: null as string | null,
    ...over,
  });
  const route = (stops: ReturnType<typeof stop>[]) => ({ stops });

  it('counts deliveries still on the route, a pair once', () => {
    const r = route([
      stop('a', { kind: 'pickup' }),
      stop('a'),
      stop('b', { on_route: false }),
      stop('c', { status: 'delivered' }),
    ]);
    expect(parcelsOf(r).map((s) => s.order)).toEqual(['a', 'c']);
  });

  it('is missing only while open and not scanned', () => {
    expect(isMissing(stop('a') as never)).toBe(true);
    expect(isMissing(stop('a', { loaded_at: '2030-03-04T08:00:00Z' }) as never)).toBe(false);
    expect(isMissing(stop('a', { status: 'delivered' }) as never)).toBe(false);
    expect(isMissing(stop('a', { status: 'cancelled' }) as never)).toBe(false);
  });
});
