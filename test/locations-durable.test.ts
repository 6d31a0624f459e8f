import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { LOCATIONS } from '../src/features/dispatch/location-writer.js';
import { type Database, openDatabase } from '../src/shared/db/index.js';
import { client, describeEach, type Merchant, newMerchant, newOperator, startApp, type TestApp } from './helpers.js';

// Issue 18, defect 11: a 2xx on a location ping must mean the points are in the database. The
// phone drops what the server acknowledged, and a kill -9 after an answer from memory lost them.

const DAY = 24 * 60 * 60 * 1000;

describeEach('courier locations: a 2xx means committed (issue 18 #11)', (engine) => {
  let t: TestApp;
  let op: string;
  let m: Merchant;
  /** A second connection to the same database: what a restarted process would find. */
  let other: Database;

  beforeAll(async () => {
    // Before the fix, pings were answered from memory and written on this interval: a minute makes
    // "answered but not written" certain rather than a race. The interval is gone now; it is ignored.
    t = await startApp(engine, { RUTA_LOCATION_FLUSH_MS: '60000' });
    op = await newOperator(t, 'test');
    m = await newMerchant(t);
    other = openDatabase(t.config.databaseUrl);
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  const newCourier = async (name = 'Durable') =>
    (await client(t.app, op)('POST', '/v1/couriers', { name })).body as { id: string; created_at: string };
  const iso = (ms: number) => new Date(ms).toISOString();
  /** What another process reads: the courier's stored position and count, and its history. */
  const stored = async (id: string) => {
    const c = await other.db
      .selectFrom('couriers')
      .select(['last_lat', 'last_lng', 'last_recorded_at', 'ping_count'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const ring = await other.db
      .selectFrom('courier_locations')
      .select(['lat', 'recorded_at'])
      .where('courier_id', '=', id)
      .orderBy('seq')
      .execute();
    return { ...c, ring };
  };

  it('every point of every 2xx is in the database at once, seen from another connection, without a close', async () => {
    const call = client(t.app, op);
    const single = await newCourier();
    const batched = await newCourier();
    const t0 = t.ctx.clock() - 60_000;
    const acks = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) =>
        call('POST', `/v1/couriers/${single.id}/location`, {
          lat: -12 - i / 1000,
          lng: -77,
          recorded_at: iso(t0 + i * 1000),
        }),
      ),
      call('POST', `/v1/couriers/${batched.id}/locations`, {
        points: Array.from({ length: 100 }, (_, i) => ({
          lat: -13 - i / 1000,
          lng: -77,
          recorded_at: iso(t0 + i * 500),
        })),
      }),
    ]);
    expect(acks.map((r) => r.status)).toEqual(Array(21).fill(200));

    const a = await stored(single.id);
    expect(a.ping_count).toBe(20);
    expect(a.ring.map((p) => p.recorded_at).sort()).toEqual(Array.from({ length: 20 }, (_, i) => t0 + i * 1000));
    expect(a).toMatchObject({ last_lat: -12.019, last_recorded_at: t0 + 19_000 });
    const b = await stored(batched.id);
    expect(b.ping_count).toBe(100);
    expect(b.ring.map((p) => p.recorded_at)).toEqual(Array.from({ length: 100 }, (_, i) => t0 + i * 500));
    expect(b).toMatchObject({ last_lat: -13.099, last_recorded_at: t0 + 99 * 500 });
    // The answer is the courier as committed.
    expect(acks[20]!.body.location).toEqual({ lat: -13.099, lng: -77, recorded_at: iso(t0 + 99 * 500) });
  });

  it('the requests of one event-loop turn share one commit, and each is answered after it', async () => {
    const writer = t.ctx.instance.get(LOCATIONS);
    const scope = { mode: 'test' as const, accountId: null };
    const couriers = await Promise.all([newCourier('G1'), newCourier('G2'), newCourier('G3')]);
    const rows = await Promise.all(couriers.map((c) => writer.courier(scope, c.id)));
    const now = t.ctx.clock();
    const before = await commits(t);
    // Nothing reaches the database before this turn of the loop ends, so the three share a commit.
    const answers = await Promise.all(rows.map((row, i) => writer.add(row, [{ lat: i, lng: i, recordedAt: now }])));
    const after = await commits(t);
    expect(after.commits - before.commits).toBe(1);
    expect(after.requests - before.requests).toBe(3);
    expect(answers.map((r) => r.last_lat)).toEqual([0, 1, 2]);
    for (const [i, c] of couriers.entries()) expect((await stored(c.id)).ring.map((p) => p.lat)).toEqual([i]);
  });

  it('a point older than the stored one is committed to the history and still does not move the courier', async () => {
    const call = client(t.app, op);
    const c = await newCourier();
    const now = t.ctx.clock();
    expect(
      (await call('POST', `/v1/couriers/${c.id}/location`, { lat: 1, lng: 1, recorded_at: iso(now) })).status,
    ).toBe(200);
    const late = await call('POST', `/v1/couriers/${c.id}/locations`, {
      points: [{ lat: 2, lng: 2, recorded_at: iso(now - 30_000) }],
    });
    expect(late.status).toBe(200);
    expect(late.body.location).toEqual({ lat: 1, lng: 1, recorded_at: iso(now) });
    const s = await stored(c.id);
    expect(s).toMatchObject({ last_lat: 1, last_recorded_at: now, ping_count: 2 });
    expect(s.ring.map((p) => p.lat)).toEqual([1, 2]);
  });

  it('a commit the database refuses answers that request 5xx, and the others of the same turn 2xx, written', async () => {
    const bad = await newCourier('Refused');
    const good = [await newCourier('Fine 1'), await newCourier('Fine 2')];
    await refuseLocationsOf(t, bad.id);
    try {
      const now = t.ctx.clock();
      const body = { points: [{ lat: -12.5, lng: -77.5, recorded_at: iso(now - 1000) }] };
      const call = client(t.app, op);
      const [refused, ...fine] = await Promise.all(
        [bad, ...good].map((c) => call('POST', `/v1/couriers/${c.id}/locations`, body)),
      );
      expect(refused!.status).toBe(500);
      expect(refused!.body.error).toMatchObject({ type: 'api_error', code: 'internal_error' });
      expect(JSON.stringify(refused!.body)).not.toContain('refused by the test');
      expect(fine.map((r) => r.status)).toEqual([200, 200]);
      for (const c of good) expect((await stored(c.id)).ring).toHaveLength(1);
      expect(await stored(bad.id)).toMatchObject({ ping_count: 0, last_lat: null, ring: [] });

      // The same through the writer itself, so the three are certainly in one commit: it fails as a
      // whole, and each request is then written alone and answers for itself.
      const writer = t.ctx.instance.get(LOCATIONS);
      const rows = await Promise.all(
        [bad, ...good].map((c) => writer.courier({ mode: 'test', accountId: null }, c.id)),
      );
      const outcomes = await Promise.allSettled(
        rows.map((row) => writer.add(row, [{ lat: -12.6, lng: -77.6, recordedAt: now }])),
      );
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
      for (const [i, c] of good.entries()) {
        expect((await stored(c.id)).ring).toHaveLength(2);
        expect((outcomes[i + 1] as PromiseFulfilledResult<{ last_lat: number }>).value.last_lat).toBe(-12.6);
      }
      expect((await stored(bad.id)).ring).toEqual([]);
    } finally {
      await allowLocations(t);
    }
  });

  it('refuses recorded_at more than 5 minutes ahead of the server clock (single and batch)', async () => {
    const call = client(t.app, op);
    const c = await newCourier();
    const now = t.ctx.clock();
    const ahead = iso(now + 6 * 60_000);
    const single = await call('POST', `/v1/couriers/${c.id}/location`, { lat: 1, lng: 1, recorded_at: ahead });
    expect(single.status).toBe(422);
    expect(single.body.error).toMatchObject({ code: 'parameter_invalid', param: 'recorded_at' });
    const batch = await call('POST', `/v1/couriers/${c.id}/locations`, {
      points: [0, 1, 2, 3].map((i) => ({ lat: 1, lng: 1, recorded_at: i < 3 ? iso(now - 3000 + i) : ahead })),
    });
    expect(batch.status).toBe(422);
    expect(batch.body.error).toMatchObject({ code: 'parameter_invalid', param: 'points[3].recorded_at' });
    // Within the skew a phone's clock may have: accepted.
    const skewed = await call('POST', `/v1/couriers/${c.id}/location`, {
      lat: 2,
      lng: 2,
      recorded_at: iso(now + 4 * 60_000),
    });
    expect(skewed.status).toBe(200);
    expect((await stored(c.id)).ring.map((p) => p.lat)).toEqual([2]);
  });

  it('refuses recorded_at before the courier was created (less 5 minutes of clock skew)', async () => {
    const call = client(t.app, op);
    const c = await newCourier();
    const created = Date.parse(c.created_at);
    const single = await call('POST', `/v1/couriers/${c.id}/location`, {
      lat: 1,
      lng: 1,
      recorded_at: iso(created - 60 * 60_000),
    });
    expect(single.status).toBe(422);
    expect(single.body.error).toMatchObject({ code: 'parameter_invalid', param: 'recorded_at' });
    expect(single.body.error.message).toContain('before the courier was created');
    const batch = await call('POST', `/v1/couriers/${c.id}/locations`, {
      points: [
        { lat: 1, lng: 1, recorded_at: iso(created - 6 * 60_000) },
        { lat: 1, lng: 1, recorded_at: iso(created) },
      ],
    });
    expect(batch.status).toBe(422);
    expect(batch.body.error).toMatchObject({ code: 'parameter_invalid', param: 'points[0].recorded_at' });
    expect((await stored(c.id)).ring).toEqual([]);
    const skewed = await call('POST', `/v1/couriers/${c.id}/locations`, {
      points: [{ lat: 3, lng: 3, recorded_at: iso(created - 4 * 60_000) }],
    });
    expect(skewed.status).toBe(200);
  });

  it('refuses recorded_at older than 7 days, even for a courier created long before', async () => {
    const now = t.ctx.clock();
    const spy = vi.spyOn(Date, 'now').mockReturnValue(now - 30 * DAY);
    let c: { id: string; created_at: string };
    try {
      c = await newCourier('Veteran');
    } finally {
      spy.mockRestore();
    }
    expect(Date.parse(c.created_at)).toBe(now - 30 * DAY);
    const call = client(t.app, op);
    const old = await call('POST', `/v1/couriers/${c.id}/locations`, {
      points: [
        { lat: 1, lng: 1, recorded_at: iso(now - 8 * DAY) },
        { lat: 2, lng: 2, recorded_at: iso(now - 6 * DAY) },
      ],
    });
    expect(old.status).toBe(422);
    expect(old.body.error).toMatchObject({ code: 'parameter_invalid', param: 'points[0].recorded_at' });
    expect(old.body.error.message).toContain('more than 7 days old');
    const single = await call('POST', `/v1/couriers/${c.id}/location`, {
      lat: 1,
      lng: 1,
      recorded_at: iso(now - 8 * DAY),
    });
    expect(single.body.error).toMatchObject({ code: 'parameter_invalid', param: 'recorded_at' });
    const week = await call('POST', `/v1/couriers/${c.id}/locations`, {
      points: [{ lat: 2, lng: 2, recorded_at: iso(now - 6 * DAY) }],
    });
    expect(week.status).toBe(200);
    expect((await stored(c.id)).ring.map((p) => p.lat)).toEqual([2]);
  });

  it('a sandbox courier is bounded the same way, and another account still gets 404 first', async () => {
    const sandbox = (await client(t.app, m.test)('POST', '/v1/couriers', { name: 'Sandbox' })).body;
    const other = await newMerchant(t, 'Other');
    const tooOld = { points: [{ lat: 1, lng: 1, recorded_at: iso(Date.parse(sandbox.created_at) - DAY) }] };
    expect((await client(t.app, other.test)('POST', `/v1/couriers/${sandbox.id}/locations`, tooOld)).status).toBe(404);
    const own = await client(t.app, m.test)('POST', `/v1/couriers/${sandbox.id}/locations`, tooOld);
    expect(own.status).toBe(422);
    expect(own.body.error.param).toBe('points[0].recorded_at');
  });
});

/** The commit-size histogram's count and sum (commits, and requests they held) on this app's registry. */
async function commits(t: TestApp): Promise<{ commits: number; requests: number }> {
  const m = (await t.ctx.metrics.getSingleMetric('ruta_location_commit_size')?.get())?.values ?? [];
  const v = (suffix: string) =>
    m.find((x) => (x as { metricName?: string }).metricName === `ruta_location_commit_size${suffix}`)?.value ?? 0;
  return { commits: v('_count'), requests: v('_sum') };
}

/** A real refusal by the database (no mock): a trigger that aborts any ping written for `courierId`. */
async function refuseLocationsOf(t: TestApp, courierId: string): Promise<void> {
  if (t.ctx.engine === 'sqlite') {
    await sql
      .raw(
        `create trigger refuse_pings before insert on courier_locations when new.courier_id = '${courierId}'
         begin select raise(abort, 'refused by the test'); end`,
      )
      .execute(t.ctx.db);
    return;
  }
  await sql
    .raw(
      `create function refuse_pings() returns trigger language plpgsql as $$
       begin raise exception 'refused by the test'; end $$`,
    )
    .execute(t.ctx.db);
  await sql
    .raw(
      `create trigger refuse_pings before insert on courier_locations for each row
       when (new.courier_id = '${courierId}') execute function refuse_pings()`,
    )
    .execute(t.ctx.db);
}

async function allowLocations(t: TestApp): Promise<void> {
  if (t.ctx.engine === 'sqlite') {
    await sql.raw('drop trigger if exists refuse_pings').execute(t.ctx.db);
    return;
  }
  await sql.raw('drop trigger if exists refuse_pings on courier_locations').execute(t.ctx.db);
  await sql.raw('drop function if exists refuse_pings()').execute(t.ctx.db);
}
