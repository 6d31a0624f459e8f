import { type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, Migrator, sql } from 'kysely';
import type { Database } from './index.js';
import type { MigrationContext } from './migration-context.js';
import * as m001 from './migrations/001_core.js';
import * as m002 from './migrations/002_lifecycle.js';
import * as m003 from './migrations/003_webhooks.js';
import * as m004 from './migrations/004_webhooks_attempts.js';
import * as m005 from './migrations/005_imports.js';
import * as m006 from './migrations/006_stream.js';
import * as m007 from './migrations/007_people.js';
import * as m008 from './migrations/008_planning.js';
import * as m009 from './migrations/009_order_board.js';
import * as m010 from './migrations/010_webhook_failures.js';
import * as m011 from './migrations/011_claim_plan.js';
import * as m012 from './migrations/012_sign_in_attempts.js';
import * as m013 from './migrations/013_jobs.js';
import * as m014 from './migrations/014_local_days.js';
import * as m015 from './migrations/015_messages.js';
import * as m016 from './migrations/016_tracking.js';
import * as m017 from './migrations/017_money.js';
import * as m018 from './migrations/018_dispatch.js';
import * as m019 from './migrations/019_setup.js';
import * as m020 from './migrations/020_proof_pin.js';
import * as m021 from './migrations/021_constraints.js';
import * as m023 from './migrations/023_labels.js';
import * as m024 from './migrations/024_move_positions.js';
import * as m028 from './migrations/028_orders_delivered_partial.js';
import * as m030 from './migrations/030_messages_provider_id_partial.js';
import * as m032 from './migrations/032_pickup_pairs.js';
import * as m033 from './migrations/033_report_ratings.js';
import * as m034 from './migrations/034_messages_render_at_send.js';
import * as m035 from './migrations/035_orders_courier_updated.js';
import * as m036 from './migrations/036_import_errors_per_field.js';
import * as m037 from './migrations/037_orders_list_status_mode.js';
import * as m038 from './migrations/038_routes_list.js';
import * as m039 from './migrations/039_routes_dated.js';
import * as m040 from './migrations/040_cash_handover_voids.js';
import * as m042 from './migrations/042_import_warnings.js';
import * as m043 from './migrations/043_routes_planned_depots.js';

type MigrationModule = { up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> };

/** Listed here rather than read from disk, so the same list works from src/ (tests) and dist/ (production). */
const MIGRATIONS: Record<string, MigrationModule> = {
  '001_core': m001,
  '002_lifecycle': m002,
  '003_webhooks': m003,
  '004_webhooks_attempts': m004,
  '005_imports': m005,
  '006_stream': m006,
  '007_people': m007,
  '008_planning': m008,
  '009_order_board': m009,
  '010_webhook_failures': m010,
  '011_claim_plan': m011,
  '012_sign_in_attempts': m012,
  '013_jobs': m013,
  '014_local_days': m014,
  '015_messages': m015,
  '016_tracking': m016,
  '017_money': m017,
  '018_dispatch': m018,
  '019_setup': m019,
  '020_proof_pin': m020,
  '021_constraints': m021,
  '023_labels': m023,
  '024_move_positions': m024,
  '028_orders_delivered_partial': m028,
  '030_messages_provider_id_partial': m030,
  '032_pickup_pairs': m032,
  '033_report_ratings': m033,
  '034_messages_render_at_send': m034,
  '035_orders_courier_updated': m035,
  '036_import_errors_per_field': m036,
  '037_orders_list_status_mode': m037,
  '038_routes_list': m038,
  '039_routes_dated': m039,
  '040_cash_handover_voids': m040,
  '042_import_warnings': m042,
  '043_routes_planned_depots': m043,
};

class StaticProvider implements MigrationProvider {
  constructor(private readonly ctx: MigrationContext) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, mod] of Object.entries(MIGRATIONS)) {
      out[name] = { up: (db) => mod.up(db, this.ctx) };
    }
    return out;
  }
}

/**
 * Applies every migration not yet applied (`to`: only up to that one, for tests of an upgrade).
 * `timezone`: the carrier's (RUTA_DEFAULT_TIMEZONE), which backfills read existing rows' days in.
 */
export async function migrate(database: Database, opts: { to?: string; timezone?: string } = {}): Promise<string[]> {
  const ctx: MigrationContext = {
    engine: database.engine,
    ms: database.engine === 'postgres' ? 'bigint' : 'integer',
    timezone: opts.timezone ?? 'UTC',
  };
  const migrator = new Migrator({ db: database.db, provider: new StaticProvider(ctx) });
  const run = () => (opts.to === undefined ? migrator.migrateToLatest() : migrator.migrateTo(opts.to));
  const { error, results } = database.engine === 'sqlite' ? await underWriteLock(database, run) : await run();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Kysely runs SQLite migrations outside any transaction and takes no lock (its adapter says SQLite
 * has no transactional DDL, and one connection), so two processes starting on a fresh file (two CLI
 * runs, a server and a worker) both applied 002 and one failed with "duplicate column name". Under
 * `BEGIN IMMEDIATE` only one process migrates; the other waits on busy_timeout, then reads the
 * migrations as applied. SQLite's DDL is transactional, so a failed migration also leaves nothing
 * half-applied. The SQLite dialect has one connection, so the migrator's statements run inside it.
 */
async function underWriteLock(database: Database, run: () => Promise<MigrationResultSet>) {
  await sql`BEGIN IMMEDIATE`.execute(database.db);
  try {
    const out = await run();
    await sql.raw(out.error ? 'ROLLBACK' : 'COMMIT').execute(database.db);
    return out;
  } catch (err) {
    await sql`ROLLBACK`.execute(database.db).catch(() => {});
    throw err;
  }
}
