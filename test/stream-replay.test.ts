import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderAudience, orderEventFilter, visibleTo } from '../src/features/stream/scope.js';
import type { Scope } from '../src/shared/auth.js';
import { newId } from '../src/shared/ids.js';
import { client, describeEach, newMerchant, newOperator, startApp, type TestApp, validOrder } from './helpers.js';
import { courierSession, type Session, userSession } from './people-helpers.js';
import { openStream, type SseMessage, type SseStream } from './stream-client.js';

/**
 * Issue #18, defect 1: a stream resumed with Last-Event-ID (every browser reconnect) must deliver
 * exactly what the same scope receives live. Each case opens a live stream, makes a burst of order
 * events in two accounts and both environments (created, assigned to a carrier courier and to a
 * sandbox one, reassigned away), resumes a second stream from before the burst, and compares.
 */
interface Fixture {
  a: { accountId: string; test: string; live: string };
  b: { accountId: string; test: string; live: string };
  op: string;
  /** A carrier courier (no account) and a sandbox courier of account A, both in test mode. */
  carrier: { id: string };
  sandbox: { id: string };
}

interface ScopeCase {
  name: string;
  /** The headers a stream of this scope is opened with. */
  headers(t: TestApp, f: Fixture): Promise<Record<string, string>>;
  /** Which order events it may see: every account's (test), account A's, or none. */
  sees: 'all' | 'A' | 'none';
  /** The courier whose position it is sure to see (the sync marker after the order events). */
  marker: 'carrier' | 'sandbox';
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const cookie = (s: Session) => ({ cookie: s.cookie });

const CASES: ScopeCase[] = [
  { name: 'merchant key', headers: async (_t, f) => bearer(f.a.test), sees: 'A', marker: 'sandbox' },
  { name: 'operator key', headers: async (_t, f) => bearer(f.op), sees: 'all', marker: 'sandbox' },
  {
    name: 'admin user',
    headers: async (t) => cookie(await userSession(t, 'admin')),
    sees: 'all',
    marker: 'sandbox',
  },
  {
    name: 'dispatcher user',
    headers: async (t) => cookie(await userSession(t, 'dispatcher')),
    sees: 'all',
    marker: 'sandbox',
  },
  {
    name: 'merchant user',
    headers: async (t, f) => cookie(await userSession(t, 'merchant', f.a.accountId)),
    sees: 'A',
    marker: 'sandbox',
  },
  {
    name: 'courier session (carrier courier)',
    headers: async (t, f) => cookie(await courierSession(t, f.op, f.carrier.id)),
    sees: 'none',
    marker: 'carrier',
  },
  {
    name: 'courier session (sandbox courier of the account)',
    headers: async (t, f) => cookie(await courierSession(t, f.op, f.sandbox.id)),
    sees: 'none',
    marker: 'sandbox',
  },
];

const orderEventIds = (s: SseStream) => s.messages.filter((m) => m.event === 'order').map((m) => m.data.id as string);

describeEach('stream: replay and live deliver the same events to every scope (issue #18.1)', (engine) => {
  let t: TestApp;
  const open: SseStream[] = [];
  beforeAll(async () => {
    t = await startApp(engine);
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await t?.close();
  });
  const stream = async (headers: Record<string, string>) => {
    const s = await openStream(t.app, undefined, headers);
    open.push(s);
    expect(s.status).toBe(200);
    return s;
  };

  async function fixture(): Promise<Fixture> {
    const a = await newMerchant(t, 'A');
    const b = await newMerchant(t, 'B');
    const op = await newOperator(t, 'test');
    const carrier = (await client(t.app, op)('POST', '/v1/couriers', { name: 'Carrier courier' })).body;
    const sandbox = (await client(t.app, a.test)('POST', '/v1/couriers', { name: 'Sandbox courier' })).body;
    return { a, b, op, carrier, sandbox };
  }

  for (const c of CASES) {
    it(`${c.name}: the resumed stream carries exactly the live stream's order events`, async () => {
      const f = await fixture();
      const headers = await c.headers(t, f);
      const op = client(t.app, f.op);
      // The witness sees every test event: once it has the last one, the hub has written the burst to every stream.
      const witness = await stream(bearer(f.op));
      const live = await stream(headers);
      // Ids of one process only grow: every event of the burst sorts after this cursor.
      const from = newId('evt', t.ctx.clock());

      const made = async (key: string, ext: string) =>
        (await client(t.app, key)('POST', '/v1/orders', validOrder({ external_order_id: ext }))).body.id as string;
      const assign = async (order: string, courier: string) =>
        expect((await op('POST', `/v1/orders/${order}/assign`, { courier_id: courier })).status).toBe(200);
      const oa1 = await made(f.a.test, 'A-1');
      const oa2 = await made(f.a.test, 'A-2');
      const ob = await made(f.b.test, 'B-1');
      await made(f.a.live, 'A-LIVE');
      await assign(oa1, f.carrier.id);
      await assign(oa1, f.sandbox.id); // reassigned away from the carrier courier
      await assign(ob, f.carrier.id);
      await assign(oa2, f.sandbox.id);
      const last = await made(f.a.test, 'A-LAST');

      // Resumed after the burst has committed: everything comes from the table (and the live path, deduplicated).
      const resumed = await stream({ ...headers, 'last-event-id': from });
      await witness.next((m) => m.event === 'order' && m.data.data.id === last, 'the last event');
      const marker = c.marker === 'carrier' ? f.carrier.id : f.sandbox.id;
      await op('POST', `/v1/couriers/${f.carrier.id}/location`, { lat: -12.1, lng: -77.1 });
      await op('POST', `/v1/couriers/${f.sandbox.id}/location`, { lat: -12.2, lng: -77.2 });
      const isMarker = (m: SseMessage) => m.event === 'courier.location' && m.data.courier === marker;
      // A stream's bytes are in order: its marker comes after every order event written to it before.
      await live.next(isMarker, 'the marker position (live)');
      await resumed.next(isMarker, 'the marker position (resumed)');

      let q = t.ctx.db
        .selectFrom('events')
        .select('id')
        .where('mode', '=', 'test')
        .where('id', '>', from)
        .where('account_id', 'in', c.sees === 'A' ? [f.a.accountId] : [f.a.accountId, f.b.accountId]);
      if (c.sees === 'none') q = q.where('id', '=', 'none');
      const expected = (await q.orderBy('id').execute()).map((r) => r.id);
      if (c.sees !== 'none') expect(expected.length).toBeGreaterThanOrEqual(c.sees === 'A' ? 6 : 8);
      expect(orderEventIds(live)).toEqual(expected);
      expect(orderEventIds(resumed)).toEqual(expected);
      for (const s of [witness, live, resumed]) s.close();
    });
  }

  it('a resumed stream waits for its replay: live messages follow the backlog, never precede it', async () => {
    const f = await fixture();
    const from = newId('evt', t.ctx.clock());
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await orderIn(f.a.test, `W-${i}`));
    const resumed = await stream({ ...bearer(f.op), 'last-event-id': from });
    await client(t.app, f.op)('POST', `/v1/couriers/${f.carrier.id}/location`, { lat: -12.3, lng: -77.3 });
    await resumed.next((m) => m.event === 'courier.location' && m.data.courier === f.carrier.id);
    const kinds = resumed.messages.map((m) => (m.event === 'order' ? m.data.data.id : m.event));
    expect(kinds.slice(0, ids.length)).toEqual(ids);
    expect(kinds.at(-1)).toBe('courier.location');
    resumed.close();
  });

  const orderIn = async (key: string, ext: string) =>
    (await client(t.app, key)('POST', '/v1/orders', validOrder({ external_order_id: ext }))).body.id as string;
});

describe("orderEventFilter: the replay's WHERE is the live rule, for every kind of scope", () => {
  const scopes: Scope[] = [
    { mode: 'test', accountId: 'acct_A' }, // secret key, merchant user
    { mode: 'live', accountId: 'acct_A' },
    { mode: 'test', accountId: null }, // operator key, admin, dispatcher
    { mode: 'live', accountId: null },
    { mode: 'test', accountId: null, courierId: 'cou_1' }, // a carrier courier's phone
    { mode: 'test', accountId: 'acct_A', courierId: 'cou_2' }, // a sandbox courier's phone
  ];
  const rows = ['acct_A', 'acct_B'].flatMap((account_id) =>
    (['test', 'live'] as const).map((mode) => ({ mode, account_id })),
  );
  /** What repo.ts's WHERE does with a filter, row by row. */
  const where = (f: ReturnType<typeof orderEventFilter>, r: (typeof rows)[number]) =>
    f !== null && r.mode === f.mode && (f.accountId === null || r.account_id === f.accountId);

  it('selects exactly the rows visibleTo lets through', () => {
    for (const scope of scopes) {
      for (const r of rows)
        expect([scope, r, where(orderEventFilter(scope), r)]).toEqual([scope, r, visibleTo(scope, orderAudience(r))]);
    }
  });

  it('gives a courier session no order events and a merchant only its account', () => {
    expect(orderEventFilter({ mode: 'test', accountId: null, courierId: 'cou_1' })).toBeNull();
    expect(orderEventFilter({ mode: 'test', accountId: 'acct_A', courierId: 'cou_2' })).toBeNull();
    expect(orderEventFilter({ mode: 'live', accountId: 'acct_A' })).toEqual({ mode: 'live', accountId: 'acct_A' });
    expect(rows.filter((r) => visibleTo({ mode: 'test', accountId: null }, orderAudience(r)))).toHaveLength(2);
  });
});
