import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Database, Engine } from './index.js';
import * as m001 from './migrations/001_core.js';
import * as m002 from './migrations/002_lifecycle.js';
import * as m003 from './migrations/003_webhooks.js';

export interface MigrationContext {
  engine: Engine;
  /** Column type for epoch-millisecond timestamps. */
  ms: 'bigint' | 'integer';
}

type MigrationModule = { up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> };

/** Listed here rather than read from disk, so the same list works from src/ (tests) and dist/ (production). */
const MIGRATIONS: Record<string, MigrationModule> = {
  '001_core': m001,
  '002_lifecycle': m002,
  '003_webhooks': m003,
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

export async function migrate(database: Database): Promise<string[]> {
  const ctx: MigrationContext = { engine: database.engine, ms: database.engine === 'postgres' ? 'bigint' : 'integer' };
  const migrator = new Migrator({ db: database.db, provider: new StaticProvider(ctx) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
