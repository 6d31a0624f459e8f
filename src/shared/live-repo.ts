import { sql } from 'kysely';
import type { Db } from './db/index.js';

/** The PostgreSQL channel of live messages other than order events (those are `ruta_events`, see migration 004). */
export const LIVE_CHANNEL = 'ruta_live';

/** Sends a message to every instance LISTENing on `channel` (PostgreSQL only). */
export async function notify(db: Db, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}
