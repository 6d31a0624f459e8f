import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../src/features/accounts/service.js';
import { countOrdersQuery } from '../src/features/orders/list-repo.js';
import { backfill } from '../src/shared/db/migrations/014_local_days.js';
import { client, describeEach, newOperator, startApp, type TestApp, validOrder } from './helpers.js';
import { csv, drain, upload, XLSX, xlsx } from './imports-helpers.js';
import { newUser, sessionClient, signIn, userSession } from './people-helpers.js';
import { explain, INDEX_ONLY } from './plan-helpers.js';

/**
 * Issue #18, defect 12: a date without a time is a calendar day in the order's zone (its account's
 * depot's, else its account's, else the carrier's), in the API, the import, the board's day and
 * the order's own fields. Found in Lima (UTC-5): `fecha=2026-11-25` was stored as midnight UTC, the
 * 24th at 19:00 in Lima. Checked west of UTC (Lima, the carrier's zone here), east of it (Tokyo,
 * through an account's depot) and on Santiago's 23-hour day (2026-09-06: clocks jump from 00:00 to
 * 01:00, so the day starts at 01:00). Planning is in local-days-planning.test.ts.
 */
describeEach('local calendar days', (engine) => {
  let t: TestApp;
  let op: string;
  let tokyoDepot: string;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' });
    op = await newOperator(t, 'test');
    const depot = await client(t.app, op)('POST', '/v1/depots', {
      name: 'Tokyo',
      lat: 35.68,
      lng: 139.77,
      timezone: 'Asia/Tokyo',
    });
    tokyoDepot = depot.body.id;
  });
  afterAll(async () => t?.close());

  /** A merchant of its own: the carrier's zone (Lima), an account zone, or a depot whose zone wins over the account's. */
  async function merchant(opts: { timezone?: string; depotId?: string } = {}) {
    const { account, keys } = await createAccount(t.ctx, { name: 'Shop', ...opts });
    return { accountId: account.id, key: keys.test, call: client(t.app, keys.test) };
  }
  const lima = () => merchant();
  const tokyo = () => merchant({ timezone: 'America/Santiago', depotId: tokyoDepot });
  const santiago = () => merchant({ timezone: 'America/Santiago' });

  async function create(call: ReturnType<typeof client>, requested: string, over: Record<string, unknown> = {}) {
    const res = await call('POST', '/v1/orders', validOrder({ requested_date: requested, ...over }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  it('POST /v1/orders: a date is that day in the order’s zone; a date-time is the instant it names', async () => {
    const cases: [() => ReturnType<typeof merchant>, string, string, string, string][] = [
      [lima, '2026-11-25', '2026-11-25T00:00:00-05:00', '2026-11-25', 'America/Lima'],
      [tokyo, '2026-11-25', '2026-11-25T00:00:00+09:00', '2026-11-25', 'Asia/Tokyo'],
      // Santiago's spring-forward day has no midnight: it starts at 01:00 (-03:00).
      [santiago, '2026-09-06', '2026-09-06T01:00:00-03:00', '2026-09-06', 'America/Santiago'],
      // 02:00Z on the 25th is still the 24th in Lima, and already the 25th in Tokyo.
      [lima, '2026-11-25T02:00:00Z', '2026-11-25T02:00:00Z', '2026-11-24', 'America/Lima'],
      [tokyo, '2026-11-25T02:00:00Z', '2026-11-25T02:00:00Z', '2026-11-25', 'Asia/Tokyo'],
    ];
    for (const [who, sent, stored, day, tz] of cases) {
      const m = await who();
      const o = await create(m.call, sent);
      expect(o, `${tz} ${sent}`).toMatchObject({ requested_date: stored, requested_day: day, timezone: tz });
      expect((await m.call('GET', `/v1/orders/${o.id}`)).body).toMatchObject({
        requested_date: stored,
        requested_day: day,
      });
    }
    // Without a requested date: none, and the zone the order's days will be read in.
    const m = await lima();
    const none = (await m.call('POST', '/v1/orders', validOrder())).body;
    expect(none).toMatchObject({ requested_date: null, requested_day: null, timezone: 'America/Lima' });
  });

  it('the board finds a day’s orders by due_on and by the day’s instants in the zone (it used to miss them west of UTC)', async () => {
    const m = await lima();
    for (const day of ['2026-11-24', '2026-11-25', '2026-11-25', '2026-11-26']) await create(m.call, day);
    await create(m.call, '2026-11-25T23:30:00-05:00'); // late on the 25th in Lima, the 26th in UTC
    const counts = async (q: string) => (await m.call('GET', `/v1/orders/counts?${q}`)).body.total;
    expect(await counts('due_on=2026-11-25')).toBe(3);
    expect(await counts('due_on=2026-11-24')).toBe(1);
    // What the console asks for the 25th in Lima: its local midnights.
    const range = `due_gte=${encodeURIComponent('2026-11-25T00:00:00-05:00')}&due_lt=${encodeURIComponent('2026-11-26T00:00:00-05:00')}`;
    expect(await counts(range)).toBe(3);
    const list = (await m.call('GET', '/v1/orders?due_on=2026-11-25&limit=100')).body.data;
    expect(list.map((o: { requested_day: string }) => o.requested_day)).toEqual(Array(3).fill('2026-11-25'));
    // An operator sees the day of each account, each in its own zone: Tokyo's 25th is its own.
    const k = await tokyo();
    await create(k.call, '2026-11-25');
    const opCounts = async (acct: string) =>
      (await client(t.app, op)('GET', `/v1/orders/counts?due_on=2026-11-25&account=${acct}`)).body.total;
    expect([await opCounts(m.accountId), await opCounts(k.accountId)]).toEqual([3, 1]);
    // An order without a requested date is due the local day it was created: 03:00Z on the 15th
    // is 22:00 on the 14th in Lima (the app's clock is held there for this one order).
    const clock = t.ctx.clock;
    Object.assign(t.ctx, { clock: () => Date.parse('2030-01-15T03:00:00Z') });
    try {
      await m.call('POST', '/v1/orders', validOrder());
    } finally {
      Object.assign(t.ctx, { clock });
    }
    expect([await counts('due_on=2030-01-14'), await counts('due_on=2030-01-15')]).toEqual([1, 0]);
  });

  it('the tracking page and its JSON show times in the order’s zone, named', async () => {
    const k = await tokyo();
    const o = await create(k.call, '2026-11-25');
    const json = await client(t.app)('GET', `/v1/public/tracking/${o.tracking_code}`);
    expect(json.body.timezone).toBe('Asia/Tokyo');
    const page = await client(t.app)('GET', `/track/${o.tracking_code}`);
    const created = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hour12: false,
      timeZone: 'Asia/Tokyo',
    }).format(new Date(o.created_at));
    // Each time in the zone, the zone named once above the history (issue #20).
    expect(page.raw.body).toContain(`>${created}</time>`);
    expect(page.raw.body).toContain('Times are in Asia/Tokyo');
    expect(page.raw.body).not.toContain(' UTC<');
  });

  it('reschedule takes a date as a day in the order’s zone', async () => {
    const m = await santiago();
    const o = await create(m.call, '2026-09-01');
    const res = await client(t.app, op)('POST', `/v1/orders/${o.id}/reschedule`, { requested_date: '2026-09-06' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: 'rescheduled',
      requested_date: '2026-09-06T01:00:00-03:00',
      requested_day: '2026-09-06',
      timezone: 'America/Santiago',
    });
    expect((await m.call('GET', '/v1/orders/counts?due_on=2026-09-06')).body.total).toBe(1);
    expect((await m.call('GET', '/v1/orders/counts?due_on=2026-09-01')).body.total).toBe(0);
  });

  it('imports: fecha=2026-11-25 is the 25th in Lima; Excel dates and times without offset are local too', async () => {
    const m = await lima();
    const rows = [
      ['external_order_id', 'customer_name', 'address', 'fecha', 'time_window_start', 'time_window_end'],
      ['L-1', 'Ana', 'Av. 1', '2026-11-25', '10:00', '13:00'],
      ['L-2', 'Ana', 'Av. 2', '25/11/2026', '10:00', '13:00'],
      ['L-3', 'Ana', 'Av. 3', '2026-11-25 10:30', '', ''],
      ['L-4', 'Ana', 'Av. 4', '2026-11-25T10:30:00+09:00', '', ''],
    ];
    expect((await upload(t, m.key, csv(rows), 'text/csv', 'date_format=DMY')).status).toBe(202);
    const k = await tokyo();
    const sheet = await xlsx([
      ['external_order_id', 'customer_name', 'address', 'requested_date'],
      ['T-1', 'Ken', 'Ginza 1', 46351], // 2026-11-25
      ['T-2', 'Ken', 'Ginza 2', 46351.4375], // 2026-11-25 10:30
    ]);
    expect((await upload(t, k.key, sheet, XLSX)).status).toBe(202);
    await drain(t);
    const byExt = async (call: ReturnType<typeof client>, ext: string) =>
      (await call('GET', `/v1/orders?external_order_id=${ext}`)).body.data[0];
    const want: [ReturnType<typeof client>, string, string, string][] = [
      [m.call, 'L-1', '2026-11-25T00:00:00-05:00', '2026-11-25'],
      [m.call, 'L-2', '2026-11-25T00:00:00-05:00', '2026-11-25'],
      [m.call, 'L-3', '2026-11-25T10:30:00-05:00', '2026-11-25'],
      [m.call, 'L-4', '2026-11-25T10:30:00+09:00', '2026-11-24'],
      [k.call, 'T-1', '2026-11-25T00:00:00+09:00', '2026-11-25'],
      [k.call, 'T-2', '2026-11-25T10:30:00+09:00', '2026-11-25'],
    ];
    for (const [call, ext, requested, day] of want) {
      expect(await byExt(call, ext), ext).toMatchObject({
        requested_date: requested,
        requested_day: day,
        source: 'excel',
      });
    }
    // The board's 25th in Lima holds the imported day's orders (it used to show none of them).
    const range = `due_gte=${encodeURIComponent('2026-11-25T00:00:00-05:00')}&due_lt=${encodeURIComponent('2026-11-26T00:00:00-05:00')}`;
    expect((await m.call('GET', `/v1/orders/counts?${range}`)).body.total).toBe(3);
  });

  it('a day of the years 0001 to 0099 is that day, and the year 0000 is refused: no order the list cannot show', async () => {
    // Found by the API audit: `Date.UTC` reads years 0–99 as 1900–1999, so such a day was not a
    // calendar day to the service, was stored as it came, and every answer showing the order
    // (its creation, the list, a reschedule) failed with a 500 after the write. In UTC: before 1908
    // Lima kept local mean time, whose offset has seconds (-05:08:12), which no RFC 3339 offset holds.
    const m = await merchant({ timezone: 'UTC' });
    const old = await create(m.call, '0050-06-01');
    expect(old).toMatchObject({ requested_date: '0050-06-01T00:00:00Z', requested_day: '0050-06-01' });
    const res = await client(t.app, op)('POST', `/v1/orders/${old.id}/reschedule`, { requested_date: '0001-02-03' });
    expect([res.status, res.body.requested_day]).toEqual([200, '0001-02-03']);
    for (const [path, body] of [
      ['/v1/orders', validOrder({ requested_date: '0000-01-01' })],
      [`/v1/orders/${old.id}/reschedule`, { requested_date: '0000-01-01' }],
    ] as const) {
      const bad = await (path === '/v1/orders' ? m.call : client(t.app, op))('POST', path, body);
      expect([bad.status, bad.body.error?.param], path).toEqual([422, 'requested_date']);
    }
    const list = await m.call('GET', '/v1/orders');
    expect(list.status).toBe(200);
    expect(list.body.data.map((o: { id: string }) => o.id)).toContain(old.id);
  });

  it('refuses dates that are neither a day nor an instant, naming the parameter', async () => {
    const m = await lima();
    for (const bad of ['2026-02-30', '2026-11-25T10:00', '25/11/2026', '2026-11-25T10:00:00+05']) {
      const res = await m.call('POST', '/v1/orders', validOrder({ requested_date: bad }));
      expect([res.status, res.body.error?.code, res.body.error?.param], bad).toEqual([
        422,
        'parameter_invalid',
        'requested_date',
      ]);
    }
    const o = await create(m.call, '2026-11-25');
    const res = await client(t.app, op)('POST', `/v1/orders/${o.id}/reschedule`, { requested_date: '2026-13-01' });
    expect([res.status, res.body.error?.param]).toEqual([422, 'requested_date']);
    for (const q of ['due_on=2026-13-01', 'due_on=today', 'due_on=2026-11-25T00:00:00Z']) {
      const r = await m.call('GET', `/v1/orders/counts?${q}`);
      expect([r.status, r.body.error?.param], q).toEqual([422, 'due_on']);
    }
  });

  it('accounts name a zone and a depot (whose zone wins); sessions answer the user’s zone', async () => {
    const admin = sessionClient(t, await userSession(t, 'admin'));
    const made = await admin('POST', '/v1/accounts', { name: 'Tienda', timezone: 'America/Santiago' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      timezone: 'America/Santiago',
      depot: null,
      effective_timezone: 'America/Santiago',
    });
    const id = made.body.id;
    const patched = await admin('PATCH', `/v1/accounts/${id}`, { depot: tokyoDepot });
    expect(patched.body).toMatchObject({
      timezone: 'America/Santiago',
      depot: tokyoDepot,
      effective_timezone: 'Asia/Tokyo',
    });
    // New orders of the account take the depot's zone at once; a merchant user's days are in it.
    const key = client(t.app, made.body.keys.test);
    expect((await create(key, '2026-11-25')).requested_date).toBe('2026-11-25T00:00:00+09:00');
    const user = await newUser(t, 'merchant', id);
    expect((await signIn(t, user.email)).body.timezone).toBe('Asia/Tokyo');
    const cleared = await admin('PATCH', `/v1/accounts/${id}`, { depot: null, timezone: null });
    expect(cleared.body).toMatchObject({ timezone: null, depot: null, effective_timezone: 'America/Lima' });
    // The carrier's people have the carrier's zone.
    expect((await admin('GET', '/v1/session')).body.timezone).toBe('America/Lima');
    for (const [body, param] of [
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ timezone: '' }, 'timezone'],
      [{ depot: 'dep_nope' }, 'depot'],
    ] as const) {
      const res = await admin('PATCH', `/v1/accounts/${id}`, body);
      expect([res.status, res.body.error?.param], JSON.stringify(body)).toEqual([422, param]);
    }
    // Only admins set them, as every account field.
    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'));
    expect((await dispatcher('PATCH', `/v1/accounts/${id}`, { timezone: 'Asia/Tokyo' })).status).toBe(403);
  });

  it('counts a day from an index alone (orders_due_day), never the table', async () => {
    const m = await lima();
    await create(m.call, '2026-11-25');
    const db = t.ctx.db;
    // Vacuumed, so PostgreSQL's visibility map lets it read the index alone (after the creates' send
    // jobs, whose open transactions would keep the newest rows from being marked visible to all;
    // FREEZE waits for a pinned page instead of skipping it).
    await t.jobs.idle();
    for (const scope of [
      { mode: 'test' as const, accountId: m.accountId },
      { mode: 'test' as const, accountId: null },
    ]) {
      const planOf = async () => {
        // Another test file's transaction still open on the shared database keeps VACUUM from
        // marking the newest pages all-visible, and the planner then prices the heap visits an
        // index-only scan would need like a plain index scan's; so vacuum and ask again until
        // it can (the plan, not the timing, is what is checked).
        if (engine === 'postgres') await sql`vacuum (freeze, analyze) orders`.execute(db);
        return (await explain(db, engine, countOrdersQuery(db, { scope, dueDay: '2026-11-25' }).compile(), INDEX_ONLY))
          .text;
      };
      // On PostgreSQL the reports' index (mode, due_day, …; 017_money) serves as well: an index alone.
      const indexAlone =
        engine === 'sqlite' ? /COVERING INDEX orders_due_day/ : /Index Only Scan using orders_(due_day|report)/;
      await expect.poll(planOf, { timeout: 30_000, interval: 500 }).toMatch(indexAlone);
      const text = await planOf();
      expect(text, text).not.toMatch(/SCAN orders\b(?! USING)|Seq Scan|Heap/);
    }
  });
});

describeEach('014_local_days backfill', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine);
  });
  afterAll(async () => t?.close());

  it('reads existing orders in the carrier’s zone, and the old import’s UTC midnights as the days they were', async () => {
    const { keys } = await createAccount(t.ctx, { name: 'Old' });
    const call = client(t.app, keys.test);
    const made = async (over: Record<string, unknown>) => (await call('POST', '/v1/orders', validOrder(over))).body.id;
    const imported = await made({ source: 'excel', requested_date: '2026-11-25T00:00:00Z' });
    const api = await made({ source: 'api', requested_date: '2026-11-25T00:00:00.000Z' });
    const late = await made({ source: 'api', requested_date: '2026-11-25T02:00:00Z' });
    // As 009 left them: the import's day as toISOString wrote it, no zone, no day.
    await sql`update orders set requested_date = '2026-11-25T00:00:00.000Z', timezone = 'UTC', due_day = ''
      where id = ${imported}`.execute(t.ctx.db);
    await sql`update orders set timezone = 'UTC', due_day = '' where id in (${api}, ${late})`.execute(t.ctx.db);
    await backfill(t.ctx.db, engine, 'America/Lima', 2);
    const read = async (id: string) => (await call('GET', `/v1/orders/${id}`)).body;
    expect(await read(imported)).toMatchObject({
      requested_date: '2026-11-25T00:00:00-05:00',
      requested_day: '2026-11-25',
      timezone: 'America/Lima',
    });
    // An API instant stays the instant it was: 00:00Z is the 24th in Lima.
    expect(await read(api)).toMatchObject({ requested_date: '2026-11-25T00:00:00.000Z', requested_day: '2026-11-24' });
    expect((await call('GET', '/v1/orders/counts?due_on=2026-11-24')).body.total).toBe(2);
    expect((await call('GET', '/v1/orders/counts?due_on=2026-11-25')).body.total).toBe(1);
  });
});
