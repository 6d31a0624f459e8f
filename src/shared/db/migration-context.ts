import type { Engine } from './index.js';

/**
 * What a migration may know about the database it runs on. Its own file, not migrate.ts, so
 * migrations do not import the module that imports them.
 */
export interface MigrationContext {
  engine: Engine;
  /** Column type for epoch-millisecond timestamps. */
  ms: 'bigint' | 'integer';
}
