import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { type Database, type Engine, openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { RUTA_CLI } from './cli-run.js';
import { client, describeEach, freshDatabaseUrl, type TestDb } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SLOW = 240_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI from source with `stdin` piped in (and closed), as `echo … | ruta …` would. */
function ruta(url: string, stdin: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...RUTA_CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, RUTA_LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** Starts `ruta serve` on a free port and resolves with its log once it listens; then stops it. */
function serveLog(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...RUTA_CLI, 'serve', '--api-only'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, PORT: '0', RUTA_LOG_LEVEL: 'info', RUTA_DEFAULT_TIMEZONE: '' },
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start: ${out}`));
    }, SLOW - 10_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('ruta listening') && out.split('\n').length > 2) {
        clearTimeout(timer);
        child.kill('SIGTERM');
      }
    });
    child.on('close', () => resolve(out));
  });
}

describeEach('users CLI', (engine: Engine) => {
  let tdb: TestDb;
  let database: Database;

  beforeAll(async () => {
    tdb = await freshDatabaseUrl(engine);
    database = openDatabase(tdb.url);
    await migrate(database);
  });
  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
  });

  /** An address no other test of this file uses (the file's tests share one database, in any order). */
  const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;

  it(
    'serve says how to create the first admin while there is no user',
    async () => {
      // A database of its own: "no user" must hold whatever the other tests made.
      const own = await freshDatabaseUrl(engine);
      const db = openDatabase(own.url);
      try {
        await migrate(db);
        const log = await serveLog(own.url);
        expect(log).toContain('No users yet. Create the first admin: npm run ruta -- users create');
        // And, with no carrier zone set, that days are cut at UTC midnight until it is.
        expect(log).toContain('RUTA_DEFAULT_TIMEZONE is not set: the carrier’s days and times are in UTC');
      } finally {
        await db.close();
        await own.drop();
      }
    },
    SLOW,
  );

  it(
    'creates a user with the password from stdin; it signs in through the API',
    async () => {
      const email = unique('boss');
      const run = await ruta(
        tdb.url,
        'a long password\n',
        'users',
        'create',
        '--email',
        email.replace('boss', 'Boss').replace('example', 'Example'),
        '--name',
        'Boss',
        '--role',
        'admin',
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(`User ${run.stdout.match(/usr_[0-9A-Z]{26}/)?.[0]} (${email}, admin).\n`);
      expect(run.stdout + run.stderr).not.toContain('a long password');
      const config = loadConfig({ DATABASE_URL: tdb.url, RUTA_LOG_LEVEL: 'silent' });
      const app = await buildApp(createContext(database, config));
      try {
        const res = await client(app)('POST', '/v1/session', {
          email,
          password: 'a long password',
        });
        expect(res.status).toBe(200);
        expect(res.body.user.role).toBe('admin');
      } finally {
        await app.close();
      }
    },
    SLOW,
  );

  it(
    'generates and prints a password once when stdin is empty; --json; list; disable',
    async () => {
      const email = unique('d');
      const run = await ruta(
        tdb.url,
        '',
        'users',
        'create',
        '--email',
        email,
        '--name',
        'D',
        '--role',
        'dispatcher',
        '--json',
      );
      expect(run.code, run.stderr).toBe(0);
      const out = JSON.parse(run.stdout);
      expect(out.user).toMatchObject({ email, role: 'dispatcher', status: 'active' });
      expect(out.password).toMatch(/^[0-9A-Za-z]{20}$/);
      const stored = await database.db
        .selectFrom('users')
        .select('password_hash')
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      expect(stored.password_hash).not.toContain(out.password);

      const list = await ruta(tdb.url, '', 'users', 'list');
      expect(list.stdout).toMatch(new RegExp(`${email.replace('.', '\\.')}\\s+D\\s+dispatcher\\s+-\\s+active`));
      const off = await ruta(tdb.url, '', 'users', 'disable', email.toUpperCase());
      expect(off.code, off.stderr).toBe(0);
      const row = await database.db
        .selectFrom('users')
        .select('status')
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('disabled');
    },
    SLOW,
  );

  it(
    'usage errors exit 2: bad role, merchant without account, short password, taken email, unknown user',
    async () => {
      // A taken address: made here, so the case holds whichever test ran first.
      const taken = unique('taken');
      expect(
        (await ruta(tdb.url, '', 'users', 'create', '--email', taken, '--name', 'T', '--role', 'admin')).code,
      ).toBe(0);
      const cases: [string, string[], RegExp][] = [
        ['', ['users', 'create', '--email', 'x@example.com', '--name', 'X', '--role', 'owner'], /--role must be/],
        ['', ['users', 'create', '--email', 'x@example.com', '--name', 'X', '--role', 'merchant'], /needs an account/],
        ['short\n', ['users', 'create', '--email', 'x@example.com', '--name', 'X', '--role', 'admin'], /at least 10/],
        ['', ['users', 'create', '--email', taken.toUpperCase(), '--name', 'X', '--role', 'admin'], /already exists/],
        ['', ['users', 'disable', 'nobody@example.com'], /no such user/],
      ];
      for (const [stdin, args, message] of cases) {
        const run = await ruta(tdb.url, stdin, ...args);
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stderr).toMatch(message);
      }
    },
    SLOW,
  );
});
