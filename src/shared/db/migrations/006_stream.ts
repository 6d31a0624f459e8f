import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/** The live stream (DESIGN §13): resume reads events by (mode, id); on PostgreSQL, commits are announced. */
export async function up(db: Kysely<unknown>, { engine }: MigrationContext): Promise<void> {
  // Last-Event-ID resume for an operator (every account of a mode) is a range of this index.
  await db.schema.createIndex('events_stream').on('events').columns(['mode', 'id']).execute();
  if (engine !== 'postgres') return;
  // At commit, every instance LISTENing on ruta_events learns the new events' ids (and reads them),
  // so a stream on any instance sees every commit. Ids go in chunks: a payload is at most 8000 bytes,
  // and a larger one would fail the inserting transaction.
  await sql`CREATE FUNCTION ruta_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE chunk text := ''; r record;
    BEGIN
      FOR r IN SELECT id FROM new_events LOOP
        IF length(chunk) > 7000 THEN PERFORM pg_notify('ruta_events', chunk); chunk := ''; END IF;
        chunk := CASE WHEN chunk = '' THEN r.id ELSE chunk || ',' || r.id END;
      END LOOP;
      IF chunk <> '' THEN PERFORM pg_notify('ruta_events', chunk); END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER events_notify AFTER INSERT ON events REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION ruta_events_notify()`.execute(db);
}
