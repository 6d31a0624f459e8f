import type { Engine } from './index.js';

/**
 * What a migration may know about the database it runs on. Its own file, not migrate.ts, so
 * migrations do not import the module that imports them.
 */
export interface MigrationContext {
  engine: Engine;
  /** Column type for epoch-millisecond timestamps. */
  ms: 'bigint' | 'integer';
  /** The carrier's time zone (RUTA_DEFAULT_TIMEZONE), for backfills that turn instants into local days. */
  timezone: string;
}
