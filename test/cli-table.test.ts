import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RUTA_CLI } from './cli-run.js';

// The CLI is one table of commands with one usage error (issue #18 §2): every command checks its
// arguments the same way, and every mistake ends the same way (exit 2, `ruta: <what>`, the usage,
// nothing on stdout). Before the table, four shapes did this, and some commands ignored extra
// arguments (`ruta migrate x` migrated).

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ruta-cli-table-'));
const DB = `sqlite:${join(dir, 'never-opened.db')}`;

function ruta(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...RUTA_CLI, ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: DB, RUTA_LOG_LEVEL: 'silent' }, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

const SLOW = 240_000;

describe('ruta: one table of commands, one usage error', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    '--help lists each command of the table once, in order',
    async () => {
      const help = await ruta('--help');
      expect(help.code).toBe(0);
      const names = [...help.stdout.matchAll(/^ {2}([a-z]+(?: [a-z]+)?)(?= |$)/gm)].map((m) => m[1]);
      expect(names).toEqual([
        'serve',
        'worker',
        'migrate',
        'accounts create',
        'accounts list',
        'keys create',
        'keys list',
        'keys revoke',
        'users create',
        'users list',
        'users disable',
        'webhooks listen',
        'orders import',
        'files migrate',
        'optimize',
      ]);
    },
    SLOW,
  );

  it(
    "`ruta <command> --help` (or -h) prints that command's usage and exits 0, opening nothing",
    async () => {
      const cases: [string[], string[]][] = [
        [['keys', 'create', '--help'], ['keys create']],
        [['serve', '-h'], ['serve']],
        [['orders', 'import', 'a.csv', '--help'], ['orders import']],
        [
          ['accounts', '--help'],
          ['accounts create', 'accounts list'],
        ],
        [['users', 'create', '--email', 'a@example.com', '--help'], ['users create']],
      ];
      const runs = await Promise.all(cases.map(([args]) => ruta(...args)));
      for (const [i, [args, names]] of cases.entries()) {
        const run = runs[i];
        expect(run.code, args.join(' ')).toBe(0);
        expect(run.stderr, args.join(' ')).toBe('');
        const listed = [...run.stdout.matchAll(/^ {2}([a-z]+(?: [a-z]+)?)(?= |$)/gm)].map((m) => m[1]);
        expect(listed, args.join(' ')).toEqual(names);
      }
      const unknown = await ruta('frobnicate', '--help');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^ruta: unknown command: frobnicate\n/);
      expect(existsSync(DB.slice('sqlite:'.length))).toBe(false);
    },
    SLOW,
  );

  it(
    'every command refuses an extra argument and an unknown option alike, before doing anything',
    async () => {
      const cases: [string[], RegExp][] = [
        [['migrate', 'x'], /^ruta: unexpected argument: x\n/],
        [['worker', 'x'], /^ruta: unexpected argument: x\n/],
        [['serve', '--api-only', 'x'], /^ruta: unexpected argument: x\n/],
        [['accounts', 'create', '--name', 'A', 'x'], /^ruta: unexpected argument: x\n/],
        [['users', 'list', 'x'], /^ruta: unexpected argument: x\n/],
        [['webhooks', 'listen', 'x'], /^ruta: unexpected argument: x\n/],
        [['orders', 'import', 'a.csv', 'b.csv'], /^ruta: unexpected argument: b.csv\n/],
        [['optimize', 'x'], /^ruta: unexpected argument: x\n/],
        [['serve', '--bogus'], /^ruta: Unknown option '--bogus'/],
        [['users', 'list', '--bogus'], /^ruta: Unknown option '--bogus'/],
        [['orders', 'import', 'a.csv', '--bogus'], /^ruta: Unknown option '--bogus'/],
        [['optimize', '--bogus'], /^ruta: Unknown option '--bogus'/],
        [['orders', 'export'], /^ruta: unknown command: orders export\n/],
        [['users'], /^ruta: unknown command: users\n/],
      ];
      const runs = [];
      for (let i = 0; i < cases.length; i += 4) {
        runs.push(...(await Promise.all(cases.slice(i, i + 4).map(([args]) => ruta(...args)))));
      }
      for (const [i, [args, message]] of cases.entries()) {
        const run = runs[i];
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stderr, args.join(' ')).toMatch(message);
        expect(run.stderr, args.join(' ')).toContain('\n\nUsage: ruta <command>\n');
        expect(run.stdout, args.join(' ')).toBe('');
      }
      expect(existsSync(DB.slice('sqlite:'.length))).toBe(false);
    },
    SLOW,
  );
});
