import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { adminQuery, databaseUrl } from './pg-admin.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Migrated databases that test apps start from as copies (test/helpers.ts, `startApp`). */
    migratedTemplates: { sqlite: string; postgres: string | null };
  }
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The newest modification time of the files under `dir` (0 when it does not exist). */
function newest(dir: string, skip: (path: string) => boolean = () => false): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && !skip(path)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Once per run, before any test file: the tests start the CLI from dist/ (test/cli-run.ts) and serve
 * the web apps from dist/web, so a build older than its sources is made again here. `npm ci` builds
 * both, so on a fresh clone this only reads modification times.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (newest(join(ROOT, 'src')) > mtime(join(ROOT, 'dist', 'cli.js'))) {
    execSync('npx tsc -p tsconfig.json', { cwd: ROOT, stdio: 'inherit' });
  }
  // The web apps import shared code from src/; web/openapi.json and the client typed from it are
  // written by the web build itself.
  const generated = (path: string) => path.endsWith('openapi.json') || path.endsWith('schema.d.ts');
  const sources = Math.max(newest(join(ROOT, 'src')), newest(join(ROOT, 'web'), generated));
  if (sources > mtime(join(ROOT, 'dist', 'web', 'console', 'index.html'))) {
    // Vitest sets NODE_ENV=test, under which Vite bundles React's development build (the console's
    // first screen 146 KB gzipped instead of 86): build what `npm ci` and users get.
    execSync('npm run build:web', { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  }
  const templates = await migratedTemplates();
  project.provide('migratedTemplates', { sqlite: templates.sqlite, postgres: templates.postgres });
  return templates.drop;
}

/**
 * The schema every test app starts from, migrated once per run: a test app's database is a copy of
 * it (a PostgreSQL `CREATE DATABASE … TEMPLATE`, a SQLite file copy) instead of a new database
 * migrated from nothing, which took 0.7–1.5 s of PostgreSQL's CPU per app on CI's loaded 2 cores
 * against 0.1–0.3 s for the copy. The app still runs `migrate` (which then finds nothing to do), and
 * the tests of migrations themselves start from empty databases (`freshDatabaseUrl`).
 */
async function migratedTemplates(): Promise<{ sqlite: string; postgres: string | null; drop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'ruta-template-'));
  const sqlite = join(dir, 'ruta.db');
  const lite = openDatabase(`sqlite:${sqlite}`);
  await migrate(lite);
  await lite.close();
  // The copy takes the main file alone, so the last connection's close must have folded the WAL in.
  if (existsSync(`${sqlite}-wal`)) throw new Error(`the SQLite template ${sqlite} kept a WAL file after closing`);

  const url = process.env.TEST_DATABASE_URL;
  let postgres: string | null = null;
  if (url) {
    postgres = `ruta_template_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    await adminQuery(url, `CREATE DATABASE ${postgres}`);
    const db = openDatabase(databaseUrl(url, postgres), { poolSize: 1 });
    await migrate(db);
    await db.close();
  }
  return {
    sqlite,
    postgres,
    drop: async () => {
      rmSync(dir, { recursive: true, force: true });
      if (url && postgres) await adminQuery(url, `DROP DATABASE IF EXISTS ${postgres} WITH (FORCE)`);
    },
  };
}
