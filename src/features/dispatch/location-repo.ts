import { sql } from 'kysely';
import type { Db, Engine, Executor } from '../../shared/db/index.js';
import { LOCATION_HISTORY } from './repo.js';

/** One courier's share of a flush: its points in arrival order, and the newest of them. */
export interface CourierBatch {
  courierId: string;
  points: { lat: number; lng: number; recordedAt: number }[];
  newest: { lat: number; lng: number; recordedAt: number };
  /** When the last of these points was acknowledged: the courier's updated_at. */
  at: number;
}

/**
 * Writes a flush of buffered pings: per courier, the count of points is added to `ping_count`, the
 * newest point moves the stored position only if it is not older than the stored one (late uploads
 * never move a courier backwards), and every point goes to the ring of the last
 * LOCATION_HISTORY pings (slot = its sequence number mod N; only a batch's last N can survive, so
 * only those are written, and no statement touches one slot twice).
 */
export async function writeBatches(db: Db, engine: Engine, batches: CourierBatch[]): Promise<void> {
  if (batches.length === 0) return;
  if (engine === 'postgres') return writePg(db, batches);
  await db.transaction().execute(async (trx) => {
    for (const b of batches) await writeSqlite(trx, b);
  });
}

/** One statement for the whole flush: arrays in, the courier UPDATE's RETURNING feeding the ring upsert. */
async function writePg(db: Db, batches: CourierBatch[]): Promise<void> {
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
    const from = Math.max(0, b.points.length - LOCATION_HISTORY);
    for (let k = from; k < b.points.length; k++) {
      const pt = b.points[k]!;
      p.id.push(b.courierId);
      p.k.push(k + 1);
      p.lat.push(pt.lat);
      p.lng.push(pt.lng);
      p.r.push(pt.recordedAt);
    }
  }
  const ring = sql.lit(LOCATION_HISTORY);
  await sql`
    with i as (
      select * from unnest(${c.id}::text[], ${c.n}::int[], ${c.lat}::float8[], ${c.lng}::float8[],
                           ${c.r}::int8[], ${at}::int8[]) as t(courier_id, n, lat, lng, recorded_at, at)
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
      returning couriers.id, couriers.ping_count, i.n
    ), p as (
      select * from unnest(${p.id}::text[], ${p.k}::int[], ${p.lat}::float8[], ${p.lng}::float8[], ${p.r}::int8[])
        as t(courier_id, k, lat, lng, recorded_at)
    )
    insert into courier_locations (courier_id, slot, seq, lat, lng, recorded_at)
    select p.courier_id, (c.ping_count - c.n + p.k) % ${ring}, c.ping_count - c.n + p.k, p.lat, p.lng, p.recorded_at
    from p join c on c.id = p.courier_id
    on conflict (courier_id, slot) do update set
      seq = excluded.seq, lat = excluded.lat, lng = excluded.lng, recorded_at = excluded.recorded_at
  `.execute(db);
}

/** In-process statements inside the flush's one transaction: an UPDATE and one multi-row upsert per courier. */
async function writeSqlite(db: Executor, b: CourierBatch): Promise<void> {
  const { lat, lng, recordedAt } = b.newest;
  const moves = sql<boolean>`last_recorded_at is null or last_recorded_at <= ${recordedAt}`;
  const row = await db
    .updateTable('couriers')
    .set((eb) => ({
      ping_count: eb('ping_count', '+', b.points.length),
      last_lat: sql`case when ${moves} then ${lat} else last_lat end`,
      last_lng: sql`case when ${moves} then ${lng} else last_lng end`,
      last_recorded_at: sql`max(coalesce(last_recorded_at, ${recordedAt}), ${recordedAt})`,
      updated_at: sql`max(updated_at, ${b.at})`,
    }))
    .where('id', '=', b.courierId)
    .returning('ping_count')
    .executeTakeFirst();
  if (!row) return;
  const base = row.ping_count - b.points.length;
  const from = Math.max(0, b.points.length - LOCATION_HISTORY);
  const values = b.points.slice(from).map((pt, j) => {
    const seq = base + from + j + 1;
    return {
      courier_id: b.courierId,
      slot: seq % LOCATION_HISTORY,
      seq,
      lat: pt.lat,
      lng: pt.lng,
      recorded_at: pt.recordedAt,
    };
  });
  await db
    .insertInto('courier_locations')
    .values(values)
    .onConflict((oc) =>
      oc.columns(['courier_id', 'slot']).doUpdateSet((eb) => ({
        seq: eb.ref('excluded.seq'),
        lat: eb.ref('excluded.lat'),
        lng: eb.ref('excluded.lng'),
        recorded_at: eb.ref('excluded.recorded_at'),
      })),
    )
    .execute();
}
