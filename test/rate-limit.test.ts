import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../src/shared/context.js';
import { installErrorHandling } from '../src/shared/error-handler.js';
import {
  BatchedRateLimitStore,
  DbRateLimitStore,
  installRateLimit,
  MemoryRateLimitStore,
  WINDOW_MS,
} from '../src/shared/rate-limit.js';
import { attachApp, client, describeEach, type Merchant, newMerchant, startApp, type TestApp } from './helpers.js';

/** Fixed windows reset every minute; start a sequence well inside one so a reset cannot split it. */
async function freshWindow(): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < 5000) await new Promise((r) => setTimeout(r, left + 50));
}

describeEach('rate limits', (engine) => {
  describe('per API key', () => {
    let t: TestApp;
    let m: Merchant;
    let other: Merchant;

    beforeAll(async () => {
      t = await startApp(engine, { RUTA_RATE_LIMIT_PER_MIN: '3' });
      m = await newMerchant(t, 'Acme');
      other = await newMerchant(t, 'Other');
    });
    afterAll(async () => t?.close());

    it('answers 429 rate_limited with Retry-After once the limit is spent, with headers on every response', async () => {
      await freshWindow();
      const call = client(t.app, m.test);
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await call('GET', '/v1/orders');
        expect(res.status).toBe(200);
        expect(res.headers['ratelimit-limit']).toBe('3');
        const reset = Number(res.headers['ratelimit-reset']);
        expect(reset).toBeGreaterThanOrEqual(1);
        expect(reset).toBeLessThanOrEqual(60);
        remaining.push(String(res.headers['ratelimit-remaining']));
      }
      expect(remaining).toEqual(['2', '1', '0']);
      const over = await call('GET', '/v1/orders');
      expect(over.status).toBe(429);
      expect(over.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
      expect(over.body.error.request_id).toBe(over.headers['request-id']);
      expect(over.headers['ratelimit-limit']).toBe('3');
      expect(over.headers['ratelimit-remaining']).toBe('0');
      expect(over.headers['retry-after']).toBe(over.headers['ratelimit-reset']);
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // A POST is limited too, before it can create anything.
      const post = await call('POST', '/v1/orders', {});
      expect(post.status).toBe(429);

      // Another key (even of the same account) has its own bucket.
      const live = await client(t.app, m.live)('GET', '/v1/orders');
      expect(live.status).toBe(200);
      expect(live.headers['ratelimit-remaining']).toBe('2');
      const others = await client(t.app, other.test)('GET', '/v1/orders/ord_missing');
      expect(others.status).toBe(404);
      expect(others.headers['ratelimit-remaining']).toBe('2');
    });

    it('counts refused requests (401) per client address, with the headers, never against a key', async () => {
      // A key and addresses of its own, so no other test has spent any of their budget.
      const fresh = await newMerchant(t, 'Fresh');
      const [a, b, c] = ['203.0.113.41', '203.0.113.42', '203.0.113.43'];
      const get = (remoteAddress: string, headers: Record<string, string> = {}) =>
        t.app.inject({ method: 'GET', url: '/v1/orders', remoteAddress, headers });
      await freshWindow();
      const refused: Record<string, string>[] = [
        {},
        { authorization: 'Bearer sk_test_unknown' },
        { authorization: `Basic ${fresh.test}` },
      ];
      const remaining: string[] = [];
      for (const headers of refused) {
        const res = await get(a, headers);
        expect(res.statusCode).toBe(401);
        expect(res.headers['ratelimit-limit']).toBe('3');
        expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
        remaining.push(String(res.headers['ratelimit-remaining']));
      }
      expect(remaining).toEqual(['2', '1', '0']);
      // Over the limit, a bad key is refused as any caller is: 429 with Retry-After.
      const over = await get(a, { authorization: 'Bearer sk_test_unknown' });
      expect(over.statusCode).toBe(429);
      expect(JSON.parse(over.body).error.code).toBe('rate_limited');
      expect(over.headers['retry-after']).toBe(over.headers['ratelimit-reset']);
      // Another address has its own count; an ended session is counted the same way.
      expect((await get(b)).headers['ratelimit-remaining']).toBe('2');
      const session = await get(c, { cookie: 'ruta_session=nope' });
      expect(session.statusCode).toBe(401);
      expect(session.headers['ratelimit-remaining']).toBe('2');
      // From the same address, the key's first real request is still its first of the window.
      const first = await get(a, { authorization: `Bearer ${fresh.test}` });
      expect(first.statusCode).toBe(200);
      expect(first.headers['ratelimit-remaining']).toBe('2');
    });

    it('leaves operational endpoints unlimited', async () => {
      const res = await client(t.app)('GET', '/healthz');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    });
  });

  // These start their own app (on PostgreSQL, a schema to migrate): more than the default 30 s under load.
  it('RUTA_RATE_LIMIT_PER_MIN=0 turns limiting and its headers off', { timeout: 60_000 }, async () => {
    const t = await startApp(engine, { RUTA_RATE_LIMIT_PER_MIN: '0' });
    try {
      const m = await newMerchant(t);
      for (let i = 0; i < 5; i++) {
        const res = await client(t.app, m.test)('GET', '/v1/orders');
        expect(res.status).toBe(200);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
        expect(res.headers['ratelimit-remaining']).toBeUndefined();
      }
    } finally {
      await t.close();
    }
  });

  it('uses the default of 6000 per minute', { timeout: 60_000 }, async () => {
    const t = await startApp(engine);
    try {
      const m = await newMerchant(t);
      const res = await client(t.app, m.test)('GET', '/v1/orders');
      expect(res.headers['ratelimit-limit']).toBe('6000');
      expect(res.headers['ratelimit-remaining']).toBe('5999');
    } finally {
      await t.close();
    }
  });

  it.runIf(engine === 'postgres')(
    'shares counters at once between instances with RUTA_RATE_LIMIT_SYNC_MS=0',
    async () => {
      const exact = { RUTA_RATE_LIMIT_PER_MIN: '3', RUTA_RATE_LIMIT_SYNC_MS: '0' };
      const a = await startApp(engine, exact);
      const b = await attachApp(a, exact);
      try {
        const m = await newMerchant(a);
        await freshWindow();
        expect((await client(a.app, m.test)('GET', '/v1/orders')).headers['ratelimit-remaining']).toBe('2');
        expect((await client(b.app, m.test)('GET', '/v1/orders')).headers['ratelimit-remaining']).toBe('1');
        expect((await client(a.app, m.test)('GET', '/v1/orders')).status).toBe(200);
        const over = await client(b.app, m.test)('GET', '/v1/orders');
        expect(over.status).toBe(429);
        expect(over.headers['retry-after']).toBeDefined();
      } finally {
        await b.close();
        await a.close();
      }
    },
    // Two apps on PostgreSQL, each migrating its schema: 31 s on a loaded 2-core machine once.
    90_000,
  );

  describe('stores', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp(engine);
    });
    afterAll(async () => t?.close());

    it('the database store counts per bucket and window, and concurrent hits are all counted', async () => {
      const store = new DbRateLimitStore(t.ctx.db);
      const counts = await Promise.all(Array.from({ length: 10 }, () => store.hit('b1', 60_000)));
      expect([...counts].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await store.hit('b2', 60_000)).toBe(1);
      expect(await store.hit('b1', 120_000)).toBe(1);
    });

    it('the batched store counts exactly in memory and shares totals between instances at each sync', async () => {
      const fail = (err: unknown) => {
        throw err;
      };
      const a = new BatchedRateLimitStore(t.ctx.db, 60_000, fail);
      const b = new BatchedRateLimitStore(t.ctx.db, 60_000, fail);
      try {
        const w = 3 * WINDOW_MS;
        expect([await a.hit('k', w), await a.hit('k', w), await a.hit('k', w)]).toEqual([1, 2, 3]);
        // Not synced yet: b knows only its own hits.
        expect(await b.hit('k', w)).toBe(1);
        await a.sync();
        await b.sync();
        // b wrote after a, so it read back all four; a learns them at its next sync.
        expect(await b.hit('k', w)).toBe(5);
        expect(await a.hit('k', w)).toBe(4);
        await a.sync();
        expect(await a.hit('k', w)).toBe(6);
        // Other buckets are their own, and a new window starts again from 1.
        expect(await a.hit('other', w)).toBe(1);
        expect(await a.hit('k', w + WINDOW_MS)).toBe(1);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('the batched store still counts the hits it is writing while the write is under way', async () => {
      const w = 7 * WINDOW_MS;
      const a = new BatchedRateLimitStore(t.ctx.db, 60_000, () => {});
      try {
        expect([await a.hit('during', w), await a.hit('during', w), await a.hit('during', w)]).toEqual([1, 2, 3]);
        // The sync has taken the three hits off the pending ones and waits for the database.
        const syncing = a.sync();
        expect(await a.hit('during', w)).toBe(4);
        await syncing;
        expect(await a.hit('during', w)).toBe(5);
        await a.sync();
        expect(await a.hit('during', w)).toBe(6);
      } finally {
        await a.close();
      }
    });

    it('the batched store writes what it counted when it closes', async () => {
      const w = 5 * WINDOW_MS;
      const a = new BatchedRateLimitStore(t.ctx.db, 60_000, () => {});
      await a.hit('closing', w);
      await a.hit('closing', w);
      await a.close();
      const b = new BatchedRateLimitStore(t.ctx.db, 60_000, () => {});
      await b.hit('closing', w);
      await b.sync();
      expect(await b.hit('closing', w)).toBe(4);
      await b.close();
    });

    it('the memory store counts per bucket and forgets ended windows', async () => {
      const store = new MemoryRateLimitStore();
      expect(await store.hit('b', 0)).toBe(1);
      expect(await store.hit('b', 0)).toBe(2);
      expect(await store.hit('c', 0)).toBe(1);
      expect(await store.hit('b', 60_000)).toBe(1);
    });
  });

  describe('per client address (public routes)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp(engine, { RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '2' });
    });
    afterAll(async () => t?.close());

    const publicApp = async (ctx: AppContext) => {
      // Public routes belong to other features; a stand-in route gets the same hook the app installs.
      const app = Fastify();
      installErrorHandling(app);
      await app.register(async (pub) => {
        installRateLimit(pub, ctx, 'ip', { group: 'stand_in' });
        pub.get('/track/:code', async () => ({ ok: true }));
      });
      await app.ready();
      return app;
    };

    it('limits each address separately', async () => {
      const app = await publicApp(t.ctx);
      try {
        await freshWindow();
        const hit = (ip: string) => app.inject({ method: 'GET', url: '/track/ABC', remoteAddress: ip });
        expect((await hit('203.0.113.1')).statusCode).toBe(200);
        expect((await hit('203.0.113.1')).headers['ratelimit-remaining']).toBe('0');
        const over = await hit('203.0.113.1');
        expect(over.statusCode).toBe(429);
        expect(over.headers['retry-after']).toBeDefined();
        expect(JSON.parse(over.body).error.code).toBe('rate_limited');
        const neighbour = await hit('203.0.113.2');
        expect(neighbour.statusCode).toBe(200);
        expect(neighbour.headers['ratelimit-limit']).toBe('2');
      } finally {
        await app.close();
      }
    });

    it('counts the tracking routes and the sign-in routes apart for one address, on every engine', async () => {
      // Every hit straight to the database on PostgreSQL (no batching), where the two counts once met.
      const own = await startApp(engine, { RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '2', RUTA_RATE_LIMIT_SYNC_MS: '0' });
      try {
        await freshWindow();
        const ip = '203.0.113.77';
        const hit = (url: string) => own.app.inject({ method: 'GET', url, remoteAddress: ip });
        expect((await hit('/v1/public/tracking/RT-NOPE')).headers['ratelimit-remaining']).toBe('1');
        expect((await hit('/v1/public/tracking/RT-NOPE')).headers['ratelimit-remaining']).toBe('0');
        expect((await hit('/v1/public/tracking/RT-NOPE')).statusCode).toBe(429);
        // The sign-in routes' count for the same address is untouched.
        const invitation = await hit('/v1/invitations/inv_nope');
        expect(invitation.statusCode).not.toBe(429);
        expect(invitation.headers['ratelimit-remaining']).toBe('1');
      } finally {
        await own.close();
      }
    });

    it('keys IPv6 clients on their /64: one host cannot dodge the limit by rotating its interface id', async () => {
      const app = await publicApp(t.ctx);
      try {
        await freshWindow();
        const hit = (ip: string) => app.inject({ method: 'GET', url: '/track/ABC', remoteAddress: ip });
        expect((await hit('2001:db8:1:2::1')).statusCode).toBe(200);
        expect((await hit('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).headers['ratelimit-remaining']).toBe('0');
        expect((await hit('2001:db8:1:2::ffff')).statusCode).toBe(429);
        // The next /64 is another client; an IPv4-mapped address counts as its IPv4 address.
        expect((await hit('2001:db8:1:3::1')).statusCode).toBe(200);
        expect((await hit('198.51.100.7')).statusCode).toBe(200);
        expect((await hit('::ffff:198.51.100.7')).headers['ratelimit-remaining']).toBe('0');
      } finally {
        await app.close();
      }
    });

    it('RUTA_PUBLIC_RATE_LIMIT_PER_MIN=0 turns it off', async () => {
      const app = await publicApp({ ...t.ctx, config: { ...t.config, publicRateLimitPerMin: 0 } });
      try {
        for (let i = 0; i < 4; i++) {
          const res = await app.inject({ method: 'GET', url: '/track/ABC', remoteAddress: '203.0.113.9' });
          expect(res.statusCode).toBe(200);
          expect(res.headers['ratelimit-limit']).toBeUndefined();
        }
      } finally {
        await app.close();
      }
    });
  });
});
