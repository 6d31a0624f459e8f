import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { describe } from 'vitest';
import { buildApp } from '../src/app.js';
import { createAccount, createKey } from '../src/features/accounts/service.js';
import { type Config, loadConfig } from '../src/shared/config.js';
import { type AppContext, createContext } from '../src/shared/context.js';
import { type Engine, openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';

export const PG_URL = process.env.TEST_DATABASE_URL;

/** SQLite always; PostgreSQL whenever TEST_DATABASE_URL is set (CI sets it). */
export const ENGINES: Engine[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/**
 * The same suite on every engine. The engine is in the describe name, "[sqlite]" or "[postgres]",
 * which is how .ci/run proves the PostgreSQL suite really ran.
 */
export function describeEach(name: string, fn: (engine: Engine) => void): void {
  for (const engine of ENGINES) describe(`${name} [${engine}]`, () => fn(engine));
}

export interface TestDb {
  url: string;
  drop(): Promise<void>;
}

/** A brand-new database: a temp SQLite file, or a fresh PostgreSQL database created for this test file. */
export async function freshDatabaseUrl(engine: Engine): Promise<TestDb> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'ruta-test-'));
    return { url: `sqlite:${join(dir, 'ruta.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (!PG_URL) throw new Error('TEST_DATABASE_URL is not set');
  const name = `ruta_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  config: Config;
  close(): Promise<void>;
}

export async function startApp(engine: Engine, env: Record<string, string> = {}): Promise<TestApp> {
  const tdb = await freshDatabaseUrl(engine);
  const filesDir = mkdtempSync(join(tmpdir(), 'ruta-files-'));
  const config = loadConfig({ RUTA_FILES_DIR: filesDir, RUTA_LOG_LEVEL: 'silent', ...env, DATABASE_URL: tdb.url });
  const database = openDatabase(config.databaseUrl, { poolSize: 10 });
  await migrate(database);
  const ctx = createContext(database, config);
  const app = await buildApp(ctx);
  await app.ready();
  return {
    app,
    ctx,
    config,
    close: async () => {
      await app.close();
      await database.close();
      await tdb.drop();
      rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

export interface Merchant {
  accountId: string;
  test: string;
  live: string;
}

export async function newMerchant(
  t: TestApp,
  name = 'Acme',
  extra: { originLat?: number; originLng?: number } = {},
): Promise<Merchant> {
  const { account, keys } = await createAccount(t.ctx.db, t.config, { name, ...extra });
  return { accountId: account.id, test: keys.test, live: keys.live };
}

export async function newOperator(t: TestApp, mode: 'test' | 'live' = 'test'): Promise<string> {
  return (await createKey(t.ctx.db, { role: 'operator', mode, accountId: null })).secret;
}

export interface Res<T = any> {
  status: number;
  body: T;
  headers: LightMyRequestResponse['headers'];
  raw: LightMyRequestResponse;
}

/** A small HTTP client over app.inject: `call(app, key)('POST', '/v1/orders', body)`. */
export function client(app: FastifyInstance, key?: string) {
  return async <T = any>(
    method: InjectOptions['method'],
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Res<T>> => {
    const h: Record<string, string> = { ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    const raw = typeof body === 'string' || Buffer.isBuffer(body);
    if (body !== undefined && !raw) h['content-type'] ??= 'application/json';
    const res = await app.inject({
      method,
      url,
      headers: h,
      payload: body === undefined ? undefined : raw ? (body as string | Buffer) : JSON.stringify(body),
    });
    let parsed: unknown = res.body;
    try {
      parsed = JSON.parse(res.body);
    } catch {}
    return { status: res.statusCode, body: parsed as T, headers: res.headers, raw: res };
  };
}

export const validOrder = (over: Record<string, unknown> = {}) => ({
  external_order_id: 'EXT-1',
  source: 'api',
  customer: { name: 'Ana Torres', email: 'ana@example.com', phone: '+51987654321' },
  delivery_address: { address: 'Av. Larco 123', district: 'Miraflores', city: 'Lima', lat: -12.1211, lng: -77.0297 },
  items: [
    { sku: 'SKU-1', description: 'Shoes', quantity: 2, weight_kg: 1.25, declared_value: 59.9 },
    { description: 'Socks', weight_kg: 0.1 },
  ],
  cash_on_delivery: 120.5,
  ...over,
});

/** A second instance on the database of `t` (as behind a load balancer); its close() leaves the database alone. */
export async function attachApp(t: TestApp, env: Record<string, string> = {}): Promise<TestApp> {
  const config = loadConfig({
    RUTA_FILES_DIR: t.config.filesDir,
    RUTA_LOG_LEVEL: 'silent',
    ...env,
    DATABASE_URL: t.config.databaseUrl,
  });
  const database = openDatabase(config.databaseUrl, { poolSize: 10 });
  const ctx = createContext(database, config);
  const app = await buildApp(ctx);
  await app.ready();
  return {
    app,
    ctx,
    config,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}
