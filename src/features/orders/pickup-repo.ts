import type { Executor } from '../../shared/db/index.js';
import type { Mode } from '../../shared/db/schema.js';

/**
 * The depots of an environment, where a pickup address may turn out to be one. Read only for an
 * order sent with a pickup_address (the carrier has a handful), never on the plain create path.
 */
export async function depotPoints(db: Executor, mode: Mode): Promise<{ id: string; lat: number; lng: number }[]> {
  return db.selectFrom('depots').select(['id', 'lat', 'lng']).where('mode', '=', mode).orderBy('id').execute();
}
