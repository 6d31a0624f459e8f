import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, inject } from 'vitest';
import { buildApp, JOBS } from '../src/app.js';
import { createAccount, createKey } from '../src/features/accounts/service.js';
import { type Config, loadConfig } from '../src/shared/config.js';
import { type AppContext, type Clock, createContext } from '../src/shared/context.js';
import { type Engine, openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { JobRunner } from '../src/shared/jobs/runner.js';
import { SchemaCompilers } from '../src/shared/schema-compilers.js';
import { testFiles } from './files-env.js';
import { adminQuery, databaseUrl } from './pg-admin.js';

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

/**
 * One engine's half of describeEach, for a suite long enough to split into a file per engine; skipped
 * where that engine is not in ENGINES (PostgreSQL without TEST_DATABASE_URL).
 */
export function describeOn(engine: Engine, name: string, fn: () => void): void {
  describe.skipIf(!ENGINES.includes(engine))(`${name} [${engine}]`, fn);
}

/**
 * The engines the browser tests run on: every engine of ENGINES, or those RUTA_TEST_BROWSER_ENGINES
 * names (a comma-separated list). CI's Node 20 run names postgres, and its Node 24 run has SQLite
 * only, so CI runs each browser test once on each engine: a browser test drives the same pages and
 * the same API whatever the engine, and running them twice on Node 20 was 10 minutes of its fork
 * time (BENCHMARKS.md "Where the test suite's time goes").
 */
export const BROWSER_ENGINES: Engine[] = browserEngines(process.env.RUTA_TEST_BROWSER_ENGINES);

function browserEngines(named: string | undefined): Engine[] {
  if (!named?.trim()) return ENGINES;
  const wanted = named.split(',').map((e) => e.trim());
  for (const e of wanted) {
    if (!ENGINES.includes(e as Engine)) {
      throw new Error(`RUTA_TEST_BROWSER_ENGINES names "${e}", not one of this run's engines (${ENGINES.join(', ')})`);
    }
  }
  return ENGINES.filter((e) => wanted.includes(e));
}

/**
 * describeEach for a browser test: on BROWSER_ENGINES, each test with 90 s rather than 30. A browser
 * test is a user's whole errand (sign-ins that each cost a scrypt, several pages, the stream), and
 * every one of its steps already fails on its own 15 s wait (openPage): on CI's loaded 2 cores a
 * sound 20-step test ran over 30 s, while a hung step still fails within its own wait.
 */
export function describeEachInBrowser(name: string, fn: (engine: Engine) => void): void {
  for (const engine of BROWSER_ENGINES) describe(`${name} [${engine}]`, { timeout: 90_000 }, () => fn(engine));
}

export interface TestDb {
  url: string;
  drop(): Promise<void>;
}

/**
 * A brand-new database: a temp SQLite file, or a fresh PostgreSQL database created for this test file.
 * Empty, unless `migrated`: then a copy of the schema test/global-setup.ts migrated once for the run.
 */
export async function freshDatabaseUrl(engine: Engine, opts: { migrated?: boolean } = {}): Promise<TestDb> {
  const template = opts.migrated ? inject('migratedTemplates') : undefined;
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'ruta-test-'));
    const file = join(dir, 'ruta.db');
    if (template) copyFileSync(template.sqlite, file);
    return { url: `sqlite:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (!PG_URL) throw new Error('TEST_DATABASE_URL is not set');
  if (template && !template.postgres)
    throw new Error('no migrated PostgreSQL template: TEST_DATABASE_URL was set late');
  const name = `ruta_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await adminQuery(
    PG_URL,
    template ? `CREATE DATABASE ${name} TEMPLATE ${template.postgres}` : `CREATE DATABASE ${name}`,
  );
  return {
    url: databaseUrl(PG_URL, name),
    drop: () => adminQuery(PG_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * One cache of compiled schemas for every app this test process builds: each app compiling its
 * own took 0.4 s of its 0.6 s start (src/shared/schema-compilers.ts).
 */
const COMPILERS = new SchemaCompilers();

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  config: Config;
  /** The app's job runner, as `ruta serve` has one: `await t.jobs.idle()` waits for queued plans to end. */
  jobs: JobRunner;
  close(): Promise<void>;
}

/**
 * `jobs: false`: no job runner (a test that runs its own, with its own clock or concurrency); t.jobs is then idle.
 * `clock`: the app's ctx.clock, for tests that hold time still or move it (default: the machine's).
 */
export async function startApp(
  engine: Engine,
  env: Record<string, string> = {},
  opts: { jobs?: boolean; clock?: Clock } = {},
): Promise<TestApp> {
  const tdb = await freshDatabaseUrl(engine, { migrated: true });
  // A temporary directory, or a fresh prefix in S3 when TEST_FILES_URL says so (files-env.ts).
  const files = await testFiles();
  const config = loadConfig({ RUTA_FILES_URL: files.url, RUTA_LOG_LEVEL: 'silent', ...env, DATABASE_URL: tdb.url });
  const database = openDatabase(config.databaseUrl, { poolSize: 10 });
  await migrate(database);
  const ctx = createContext(database, config, { clock: opts.clock });
  const app = await buildApp(ctx, COMPILERS);
  await app.ready();
  const jobs = new JobRunner(ctx, opts.jobs === false ? [] : JOBS);
  if (opts.jobs !== false) jobs.start();
  return {
    app,
    ctx,
    config,
    jobs,
    close: async () => {
      await jobs.stop();
      await app.close();
      await database.close();
      await tdb.drop();
      await files.cleanup();
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
  const { account, keys } = await createAccount(t.ctx, { name, ...extra });
  return { accountId: account.id, test: keys.test, live: keys.live };
}

export async function newOperator(t: TestApp, mode: 'test' | 'live' = 'test'): Promise<string> {
  return (await createKey(t.ctx, { role: 'operator', mode, accountId: null })).secret;
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
    RUTA_FILES_URL: t.config.filesUrl,
    RUTA_LOG_LEVEL: 'silent',
    ...env,
    DATABASE_URL: t.config.databaseUrl,
  });
  const database = openDatabase(config.databaseUrl, { poolSize: 10 });
  const ctx = createContext(database, config);
  const app = await buildApp(ctx, COMPILERS);
  await app.ready();
  // Jobs run on the first instance only (its runner finds them all: they are in the database).
  const jobs = new JobRunner(ctx, []);
  return {
    app,
    ctx,
    config,
    jobs,
    close: async () => {
      await jobs.stop();
      await app.close();
      await database.close();
    },
  };
}

/*
 * Fixtures: the preamble of a suite in one line each, and data each test owns.
 *
 * The suite runs shuffled (vitest.config.ts), so a test may run first, last or between any two
 * others of its file. A test that counts rows, lists "everything" or expects an empty table must
 * own what it counts: its own merchant (`useMerchant`, a new account before every test), or its
 * own app (`useApp` in its own describe) when it counts across accounts as an operator does.
 */

/** Reads a fixture's value, or says why it does not exist yet (outside a test or hook of its describe). */
function holder<T>(what: string) {
  let value: T | undefined;
  return {
    set: (v: T | undefined) => {
      value = v;
    },
    get: (): T => {
      if (value === undefined) throw new Error(`${what} exists only inside the tests and hooks of its describe`);
      return value;
    },
    peek: () => value,
  };
}

/**
 * The app of a describe block, started before its first test and closed after its last:
 * `const t = useApp(engine, env, opts)` in place of `let t` + beforeAll(startApp) + afterAll(close).
 * `env` may be a function, read when the app starts (for a URL a beforeAll above it has just made).
 */
export function useApp(
  engine: Engine,
  env: Record<string, string> | (() => Record<string, string>) = {},
  opts: { jobs?: boolean; clock?: Clock } = {},
): TestApp {
  const h = holder<TestApp>('useApp: the app');
  beforeAll(async () => {
    h.set(await startApp(engine, typeof env === 'function' ? env() : env, opts));
  });
  afterAll(async () => {
    const t = h.peek();
    h.set(undefined);
    await t?.close();
  });
  return {
    get app() {
      return h.get().app;
    },
    get ctx() {
      return h.get().ctx;
    },
    get config() {
      return h.get().config;
    },
    get jobs() {
      return h.get().jobs;
    },
    close: async () => {
      const t = h.peek();
      h.set(undefined);
      await t?.close();
    },
  };
}

/**
 * A merchant of its own for every test: a new account (and its test and live keys) before each
 * test of the describe, so what one test creates is never in another's lists or counts.
 */
export function useMerchant(
  t: TestApp,
  name = 'Acme',
  extra: { originLat?: number; originLng?: number } = {},
): Merchant {
  const h = holder<Merchant>(`useMerchant(${name})`);
  beforeEach(async () => {
    h.set(await newMerchant(t, name, extra));
  });
  return {
    get accountId() {
      return h.get().accountId;
    },
    get test() {
      return h.get().test;
    },
    get live() {
      return h.get().live;
    },
  };
}

/**
 * An operator key for the describe (made once: an operator owns no data, it sees every account's).
 * A test that counts what an operator sees needs an app of its own, or a filter on its merchant.
 */
export function useOperator(t: TestApp, mode: 'test' | 'live' = 'test'): { readonly key: string } {
  const h = holder<string>(`useOperator(${mode})`);
  beforeAll(async () => {
    h.set(await newOperator(t, mode));
  });
  return {
    get key() {
      return h.get();
    },
  };
}
