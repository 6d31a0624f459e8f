import { sql } from 'kysely';
import type { Executor } from './index.js';

/** The readiness probe: the cheapest statement that still needs a working connection. */
export async function ping(db: Executor): Promise<void> {
  await sql`select 1`.execute(db);
}
