import { CompiledQuery } from 'kysely';
import type { Db, Engine, Executor } from '../../shared/db/index.js';
import { type CourierRow, LOCATION_HISTORY } from './repo.js';

/** One courier's share of a commit: its points in arrival order, and the newest of them. */
export interface CourierBatch {
  courierId: string;
  points: { lat: number; lng: number; recordedAt: number }[];
  newest: { lat: number; lng: number; recordedAt: number };
  /** When the last of these points arrived: the courier's updated_at. */
  at: number;
}

// A commit of location points runs once per event-loop turn under load (location-writer.ts), so
// its SQL is written out once per engine rather than built by Kysely on every call (the same
// reasoning as the webhook settle, settle-repo.ts).

const RING = LOCATION_HISTORY;

/**
 * Every batch's courier row moved in one UPDATE: `ping_count` grows by the batch's points, and the
 * newest point moves the stored position only if it is not older than the stored one (late uploads
 * never move a courier backwards). The ring of the last RING pings is then filled from the new
 * count: slot = sequence number mod RING; only a batch's last RING points can survive, so only
 * those are written, and no statement touches one slot twice. Answers the courier rows as they now
 * stand.
 */
const PG_WRITE = `
  with i as (
    select * from unnest($1::text[], $2::int[], $3::float8[], $4::float8[], $5::int8[], $6::int8[])
      as t(courier_id, n, lat, lng, recorded_at, at)
  ), c as (
    update couriers set
      ping_count = couriers.ping_count + i.n,
      last_lat = case when couriers.last_recorded_at is null or couriers.last_recorded_at <= i.recorded_at
                      then i.lat else couriers.last_lat end,
      last_lng = case when couriers.last_recorded_at is null or couriers.last_recorded_at <= i.recorded_at
                      then i.lng else couriers.last_lng end,
      last_recorded_at = greatest(couriers.last_recorded_at, i.recorded_at),
      updated_at = greatest(couriers.updated_at, i.at)
    from i where couriers.id = i.courier_id
    returning couriers.*, i.n as batch_n
  ), p as (
    select * from unnest($7::text[], $8::int[], $9::float8[], $10::float8[], $11::int8[])
      as t(courier_id, k, lat, lng, recorded_at)
  ), ring as (
    insert into courier_locations (courier_id, slot, seq, lat, lng, recorded_at)
    select p.courier_id, (c.ping_count - c.batch_n + p.k) % ${RING}, c.ping_count - c.batch_n + p.k,
           p.lat, p.lng, p.recorded_at
    from p join c on c.id = p.courier_id
    on conflict (courier_id, slot) do update set
      seq = excluded.seq, lat = excluded.lat, lng = excluded.lng, recorded_at = excluded.recorded_at
  )
  select * from c`;

/** Rows in as one JSON array of arrays, `json_each(?)`, as the webhook settle does (settle-repo.ts). */
const SQLITE_COURIERS = `
  update couriers set
    ping_count = couriers.ping_count + x.n,
    last_lat = case when couriers.last_recorded_at is null or couriers.last_recorded_at <= x.recorded_at
                    then x.lat else couriers.last_lat end,
    last_lng = case when couriers.last_recorded_at is null or couriers.last_recorded_at <= x.recorded_at
                    then x.lng else couriers.last_lng end,
    last_recorded_at = max(coalesce(couriers.last_recorded_at, x.recorded_at), x.recorded_at),
    updated_at = max(couriers.updated_at, x.at)
  from (select value ->> 0 as courier_id, value ->> 1 as n, value ->> 2 as lat, value ->> 3 as lng,
               value ->> 4 as recorded_at, value ->> 5 as at
        from json_each(?)) as x
  where couriers.id = x.courier_id
  returning *`;

// "where true": SQLite's parser needs it between INSERT … SELECT and ON CONFLICT.
const SQLITE_RING = `
  insert into courier_locations (courier_id, slot, seq, lat, lng, recorded_at)
  select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 from json_each(?) where true
  on conflict (courier_id, slot) do update set
    seq = excluded.seq, lat = excluded.lat, lng = excluded.lng, recorded_at = excluded.recorded_at`;

/** PostgreSQL's code for a deadlock: the whole statement was rolled back, so it is simply run again. */
const DEADLOCK = '40P01';

/**
 * Writes one commit of location points, at most one batch per courier, and answers the couriers as
 * they stand after it (a courier that no longer exists is absent). One statement on PostgreSQL
 * (atomic by itself), one transaction of two on SQLite.
 */
export async function writeBatches(db: Db, engine: Engine, batches: CourierBatch[]): Promise<CourierRow[]> {
  if (batches.length === 0) return [];
  // The same order of row locks in every commit, whichever instance writes it.
  const sorted = [...batches].sort((a, b) => (a.courierId < b.courierId ? -1 : a.courierId > b.courierId ? 1 : 0));
  if (engine === 'postgres') return writePg(db, sorted);
  return db.transaction().execute((trx) => writeSqlite(trx, sorted));
}

async function writePg(db: Db, batches: CourierBatch[]): Promise<CourierRow[]> {
  const c = { id: [] as string[], n: [] as number[], lat: [] as number[], lng: [] as number[], r: [] as number[] };
  const at: number[] = [];
  const p = { id: [] as string[], k: [] as number[], lat: [] as number[], lng: [] as number[], r: [] as number[] };
  for (const b of batches) {
    c.id.push(b.courierId);
    c.n.push(b.points.length);
    c.lat.push(b.newest.lat);
    c.lng.push(b.newest.lng);
    c.r.push(b.newest.recordedAt);
    at.push(b.at);
    const from = Math.max(0, b.points.length - RING);
    for (let k = from; k < b.points.length; k++) {
      const pt = b.points[k]!;
      p.id.push(b.courierId);
      p.k.push(k + 1);
      p.lat.push(pt.lat);
      p.lng.push(pt.lng);
      p.r.push(pt.recordedAt);
    }
  }
  const query = CompiledQuery.raw(PG_WRITE, [c.id, c.n, c.lat, c.lng, c.r, at, p.id, p.k, p.lat, p.lng, p.r]);
  for (let tries = 1; ; tries++) {
    try {
      const { rows } = await db.executeQuery<CourierRow & { batch_n?: number }>(query);
      for (const row of rows) delete row.batch_n;
      return rows;
    } catch (err) {
      // Another instance committing the same couriers can still lock them first in a different plan.
      if ((err as { code?: string }).code !== DEADLOCK || tries >= 3) throw err;
    }
  }
}

/**
 * SQLite: two statements for the whole commit, whatever its size. The couriers' UPDATE answers each
 * new `ping_count`, from which the ring's sequence numbers follow. JSON carries the coordinates
 * exactly: JavaScript writes the shortest text that reads back as the same double, and SQLite
 * (3.43 and later; the drivers bundle 3.53 and 3.54) reads decimal text correctly rounded.
 */
async function writeSqlite(db: Executor, batches: CourierBatch[]): Promise<CourierRow[]> {
  const couriers = batches.map((b) => [
    b.courierId,
    b.points.length,
    b.newest.lat,
    b.newest.lng,
    b.newest.recordedAt,
    b.at,
  ]);
  const { rows } = await db.executeQuery<CourierRow>(CompiledQuery.raw(SQLITE_COURIERS, [JSON.stringify(couriers)]));
  const count = new Map(rows.map((r) => [r.id, r.ping_count]));
  const ring: (string | number)[][] = [];
  for (const b of batches) {
    const after = count.get(b.courierId);
    if (after === undefined) continue;
    const n = b.points.length;
    for (let k = Math.max(0, n - RING); k < n; k++) {
      const pt = b.points[k]!;
      const seq = after - n + k + 1;
      ring.push([b.courierId, seq % RING, seq, pt.lat, pt.lng, pt.recordedAt]);
    }
  }
  if (ring.length > 0) await db.executeQuery(CompiledQuery.raw(SQLITE_RING, [JSON.stringify(ring)]));
  return rows;
}
