// Writes the OpenAPI document that `ruta serve` would answer at /v1/openapi.json, without a
// server or a database file: the web build types its API client from it (web/src/api/schema.d.ts).
// Runs after `tsc` (it imports dist/), so it needs no TypeScript loader.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const out = resolve(process.argv[2] ?? 'web/openapi.json');
const { buildApp } = await import('../dist/app.js');
const { loadConfig } = await import('../dist/shared/config.js');
const { createContext } = await import('../dist/shared/context.js');
const { openDatabase } = await import('../dist/shared/db/index.js');

const dir = mkdtempSync(join(tmpdir(), 'ruta-openapi-'));
try {
  const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'ruta.db')}`, RUTA_LOG_LEVEL: 'silent', RUTA_FILES_DIR: dir });
  const database = openDatabase(config.databaseUrl);
  const app = await buildApp(createContext(database, config));
  await app.ready();
  const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(res.json(), null, 2)}\n`);
  await app.close();
  await database.close();
  console.log(`openapi: wrote ${out}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
