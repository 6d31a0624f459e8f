import { execFile, spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { describeDelivery } from '../src/cli/webhooks-listen.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { type Database, type Engine, openDatabase } from '../src/shared/db/index.js';
import { RUTA_CLI } from './cli-run.js';
import { client, describeEach, freshDatabaseUrl, type TestDb } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI from source, exactly as `ruta …` would, against one database. */
function ruta(url: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...RUTA_CLI, ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: url, RUTA_LOG_LEVEL: 'silent' }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const ID = '[0-9A-Z]{26}';
const SECRET = '[0-9A-Za-z]{32}';
/** Each run starts Node (a second or more on a busy machine), so these tests get a long budget. */
const SLOW = 240_000;

describeEach('cli', (engine: Engine) => {
  let tdb: TestDb;
  let database: Database;

  beforeAll(async () => {
    tdb = await freshDatabaseUrl(engine);
  });
  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
  });

  /** An API server over the CLI's database, to prove what the CLI printed actually works. */
  async function api() {
    database ??= openDatabase(tdb.url, { poolSize: 2 });
    const config = loadConfig({ DATABASE_URL: tdb.url, RUTA_LOG_LEVEL: 'silent' });
    const app = await buildApp(createContext(database, config));
    await app.ready();
    return app;
  }

  it(
    'migrate applies the migrations, then finds nothing to do',
    async () => {
      // A database of its own: the file's other tests migrate the shared one, in any order.
      const fresh = await freshDatabaseUrl(engine);
      try {
        const first = await ruta(fresh.url, 'migrate');
        expect(first.stderr).toBe('');
        expect(first.code).toBe(0);
        expect(first.stdout).toMatch(/^applied: 001_core/);
        const second = await ruta(fresh.url, 'migrate');
        expect(second.code).toBe(0);
        expect(second.stdout).toBe('database is up to date\n');
      } finally {
        await fresh.drop();
      }
    },
    SLOW,
  );

  it(
    'three processes migrating a fresh database at once: one applies, the others find it done',
    async () => {
      const fresh = await freshDatabaseUrl(engine);
      try {
        const runs = await Promise.all([1, 2, 3].map(() => ruta(fresh.url, 'migrate')));
        expect(runs.map((r) => [r.code, r.stderr])).toEqual([
          [0, ''],
          [0, ''],
          [0, ''],
        ]);
        const applied = runs.filter((r) => r.stdout.startsWith('applied: 001_core'));
        expect(applied).toHaveLength(1);
        expect(runs.filter((r) => r.stdout === 'database is up to date\n')).toHaveLength(2);
      } finally {
        await fresh.drop();
      }
    },
    SLOW,
  );

  it(
    'accounts create --json prints exactly the account and its two keys, which work',
    async () => {
      const run = await ruta(tdb.url, 'accounts', 'create', '--name', 'Acme Perú', '--json');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        new RegExp(
          `^\\{"account":\\{"id":"acct_${ID}","name":"Acme Perú"\\},"keys":\\{"test":"sk_test_${SECRET}","live":"sk_live_${SECRET}"\\}\\}\\n$`,
        ),
      );
      const out = JSON.parse(run.stdout);
      const app = await api();
      try {
        const created = await client(app, out.keys.test)('POST', '/v1/orders', {
          customer: { name: 'Ana' },
          delivery_address: { address: 'Av. Larco 123' },
        });
        expect(created.status).toBe(201);
        expect(created.body.livemode).toBe(false);
        expect((await client(app, out.keys.live)('GET', `/v1/orders/${created.body.id}`)).status).toBe(404);
      } finally {
        await app.close();
      }
    },
    SLOW,
  );

  it(
    'keys create prints {id, secret, mode, role}; keys revoke makes the key fail with 401',
    async () => {
      const acct = JSON.parse((await ruta(tdb.url, 'accounts', 'create', '--name', 'K', '--json')).stdout).account.id;
      const live = await ruta(tdb.url, 'keys', 'create', '--account', acct, '--mode', 'live', '--json');
      expect(live.code).toBe(0);
      expect(live.stdout).toMatch(
        new RegExp(`^\\{"id":"key_${ID}","secret":"sk_live_${SECRET}","mode":"live","role":"merchant"\\}\\n$`),
      );
      const op = await ruta(tdb.url, 'keys', 'create', '--operator', '--mode', 'test', '--json');
      expect(op.code).toBe(0);
      expect(op.stdout).toMatch(
        new RegExp(`^\\{"id":"key_${ID}","secret":"ok_test_${SECRET}","mode":"test","role":"operator"\\}\\n$`),
      );
      // Without --json the secret is all of stdout, so KEY=$(ruta keys create …) works; the notice is on stderr.
      const human = await ruta(tdb.url, 'keys', 'create', '--account', acct, '--mode', 'test');
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(new RegExp(`^sk_test_${SECRET}\\n$`));
      expect(human.stderr).toMatch(new RegExp(`^Key key_${ID} \\(merchant, test\\)\\. The secret is shown once`));

      const key = JSON.parse(live.stdout);
      const operator = JSON.parse(op.stdout);
      const app = await api();
      try {
        expect((await client(app, key.secret)('GET', '/v1/orders')).status).toBe(200);
        expect((await client(app, operator.secret)('GET', '/v1/orders')).status).toBe(200);
        expect((await client(app, operator.secret)('POST', '/v1/orders', {})).status).toBe(403);
        const revoked = await ruta(tdb.url, 'keys', 'revoke', key.id);
        expect(revoked.code).toBe(0);
        expect(revoked.stdout).toContain(key.id);
        const res = await client(app, key.secret)('GET', '/v1/orders');
        expect(res.status).toBe(401);
        expect(res.body.error.type).toBe('authentication_error');
        expect((await client(app, operator.secret)('GET', '/v1/orders')).status).toBe(200);
        const again = await ruta(tdb.url, 'keys', 'revoke', key.id);
        expect(again.code).toBe(0);
        expect(again.stdout).toMatch(/already revoked/);
      } finally {
        await app.close();
      }
    },
    SLOW,
  );

  it(
    'accounts list and keys list show ids, roles, modes, masked keys and revocations, never a secret',
    async () => {
      const a = JSON.parse((await ruta(tdb.url, 'accounts', 'create', '--name', 'Listed A', '--json')).stdout);
      const b = JSON.parse((await ruta(tdb.url, 'accounts', 'create', '--name', 'Listed B', '--json')).stdout);
      const op = JSON.parse((await ruta(tdb.url, 'keys', 'create', '--operator', '--mode', 'live', '--json')).stdout);
      await ruta(tdb.url, 'keys', 'revoke', op.id);

      const accounts = await ruta(tdb.url, 'accounts', 'list', '--json');
      expect(accounts.code).toBe(0);
      const listed = JSON.parse(accounts.stdout) as { id: string; name: string; currency: string }[];
      const ids = listed.map((x) => x.id);
      expect(ids.indexOf(a.account.id)).toBeGreaterThanOrEqual(0);
      expect(ids.indexOf(b.account.id)).toBeGreaterThan(ids.indexOf(a.account.id));
      expect(listed.find((x) => x.id === a.account.id)).toMatchObject({ name: 'Listed A', currency: 'USD' });
      const table = await ruta(tdb.url, 'accounts', 'list');
      expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+CURRENCY\s+CREATED$/);
      expect(table.stdout).toMatch(new RegExp(`${a.account.id}\\s+Listed A\\s+USD\\s+\\d{4}-\\d\\d-\\d\\dT`));

      const all = await ruta(tdb.url, 'keys', 'list', '--json');
      expect(all.code).toBe(0);
      const keys = JSON.parse(all.stdout) as Record<string, unknown>[];
      const operator = keys.find((k) => k.id === op.id);
      expect(operator).toMatchObject({ account: null, role: 'operator', mode: 'live' });
      expect(operator?.revoked_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
      expect(Object.keys(operator ?? {}).sort()).toEqual(
        ['account', 'created_at', 'display', 'id', 'mode', 'revoked_at', 'role'].sort(),
      );

      const mine = await ruta(tdb.url, 'keys', 'list', '--account', a.account.id, '--json');
      const own = JSON.parse(mine.stdout) as { account: string; mode: string; role: string; revoked_at: null }[];
      expect(own.map((k) => [k.account, k.role, k.mode, k.revoked_at])).toEqual([
        [a.account.id, 'merchant', 'test', null],
        [a.account.id, 'merchant', 'live', null],
      ]);
      const human = await ruta(tdb.url, 'keys', 'list', '--account', a.account.id);
      expect(human.stdout.split('\n')[0]).toMatch(/^ID\s+ACCOUNT\s+ROLE\s+MODE\s+KEY\s+CREATED\s+REVOKED$/);
      expect(human.stdout).toContain(`${a.keys.test.slice(0, 12)}…${a.keys.test.slice(-4)}`);
      // No secret, whole or hashed, in any listing.
      for (const out of [all.stdout, mine.stdout, human.stdout]) {
        for (const secret of [a.keys.test, a.keys.live, b.keys.test, op.secret]) {
          expect(out).not.toContain(secret);
          expect(out).not.toContain(createHash('sha256').update(secret).digest('hex'));
        }
        expect(out).not.toMatch(new RegExp(`(sk|ok)_(test|live)_${SECRET}`));
      }
    },
    SLOW,
  );

  it(
    'bad usage exits 2 with a message and prints nothing on stdout',
    async () => {
      const usage: [string[], RegExp][] = [
        [['accounts', 'create'], /--name is required/],
        [['accounts', 'create', '--name', '   '], /name/],
        // The API's own limit (POST /v1/accounts: 422 above 200), so the CLI makes no account the API could not.
        [['accounts', 'create', '--name', 'a'.repeat(201)], /--name must be at most 200 characters/],
        [['accounts', 'create', '--name', 'X', '--currency', 'EURO'], /currency/],
        [['accounts', 'create', '--name', 'X', '--currency', 'ZZZ'], /--currency must be an ISO 4217 currency code/],
        [['accounts', 'create', '--name', 'X', '--origin-lat', '100', '--origin-lng', '0'], /origin-lat/],
        [['accounts', 'create', '--name', 'X', '--origin-lat', '10'], /origin-lng/],
        [['accounts', 'create', '--name', 'X', '--origin-lat', 'abc', '--origin-lng', '1'], /origin-lat/],
        [['accounts', 'create', '--name', 'X', '--bogus'], /bogus/],
        [['accounts', 'create', '--name', 'X', '--timezone', 'Mars/Olympus'], /--timezone/],
        [['keys', 'create', '--mode', 'test'], /--account ID or --operator/],
        [['keys', 'create', '--operator', '--account', 'acct_x', '--mode', 'test'], /--account ID or --operator/],
        [['keys', 'create', '--operator', '--mode', 'prod'], /--mode must be test or live/],
        [['keys', 'create', '--operator'], /--mode must be test or live/],
        [['keys', 'revoke'], /KEY_ID/],
        [['frobnicate'], /unknown command/],
        [['keys', 'delete', 'x'], /unknown command/],
        [['keys', 'revoke', 'a', 'b'], /unexpected argument/],
        [['accounts', 'list', 'x'], /unexpected argument/],
        [['webhooks', 'listen', '--port', '99999'], /--port/],
        [['webhooks', 'listen', '--secret', 'nope'], /--secret/],
        [['webhooks', 'forward'], /unknown command/],
      ];
      // Argument checks do not depend on the engine; lookups do, so they run on both.
      const lookups: [string[], RegExp][] = [
        [['keys', 'create', '--account', 'acct_nope', '--mode', 'test'], /no such account/],
        [['keys', 'revoke', 'key_nope'], /no such key/],
        [['keys', 'list', '--account', 'acct_nope'], /no such account/],
      ];
      const cases = engine === 'sqlite' ? [...usage, ...lookups] : lookups;
      // None of these should open the database; they run four at a time to keep the suite quick.
      const runs: Run[] = [];
      for (let i = 0; i < cases.length; i += 4) {
        runs.push(...(await Promise.all(cases.slice(i, i + 4).map(([args]) => ruta(tdb.url, ...args)))));
      }
      for (const [i, [args, message]] of cases.entries()) {
        const run = runs[i];
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stderr, args.join(' ')).toMatch(message);
        expect(run.stderr, args.join(' ')).toContain('Usage: ruta');
        expect(run.stdout, args.join(' ')).toBe('');
      }
      const help = await ruta(tdb.url, '--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('keys revoke KEY_ID');
    },
    SLOW,
  );
});

describe('ruta webhooks listen', () => {
  const SECRET_KEY = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const body = JSON.stringify({ id: 'evt_1', event: 'order.delivered', data: { id: 'ord_1', status: 'delivered' } });
  const hex = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest('hex');

  /** Headers as docs/webhooks.md describes them, signed with `secret`, `t` seconds from now. */
  function signed(secret: string, skew = 0): Record<string, string> {
    const t = String(Math.floor(Date.now() / 1000) + skew);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const standard = createHmac('sha256', key).update(`evt_1.${t}.${body}`).digest('base64');
    return {
      'content-type': 'application/json',
      'service-event': 'order.delivered',
      'service-event-id': 'evt_1',
      'service-attempt': '2',
      'service-signature': `t=${t},v1=${hex(secret, body)},v2=${hex(secret, `${t}.${body}`)}`,
      'webhook-id': 'evt_1',
      'webhook-timestamp': t,
      'webhook-signature': `v1,${standard}`,
    };
  }

  it(
    'prints each delivery, accepts valid signatures and refuses wrong or stale ones, and stops on SIGTERM',
    async () => {
      const child = spawn(
        process.execPath,
        [...RUTA_CLI, 'webhooks', 'listen', '--port', '0', '--secret', SECRET_KEY],
        {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        const port = await new Promise<number>((resolve, reject) => {
          const timer = setInterval(() => {
            const m = /Listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
            // Both start-up lines: they may arrive in separate chunks.
            if (m && out.includes('RUTA_WEBHOOK_ALLOW_INSECURE=1')) {
              clearInterval(timer);
              resolve(Number(m[1]));
            }
          }, 50);
          child.on('exit', () => reject(new Error(`exited early: ${out}`)));
        });
        expect(out).toContain('RUTA_WEBHOOK_ALLOW_INSECURE=1');
        // A GET (the README's wait for the port) is answered and not printed as a delivery.
        const probe = await fetch(`http://127.0.0.1:${port}/`);
        expect([probe.status, await probe.text()]).toEqual([200, 'listening\n']);
        const post = (headers: Record<string, string>) =>
          fetch(`http://127.0.0.1:${port}/ruta`, { method: 'POST', headers, body }).then((r) => r.status);
        expect(await post(signed(SECRET_KEY))).toBe(200);
        const wrong = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
        expect(await post(signed(wrong))).toBe(400);
        // v1 alone (the contract's first scheme) verifies; an old timestamp fails v2 and Standard Webhooks.
        const { 'service-signature': sig, ...rest } = signed(SECRET_KEY);
        const v1Only = sig
          .split(',')
          .filter((p) => !p.startsWith('v2='))
          .join(',');
        const noStandard = Object.fromEntries(Object.entries(rest).filter(([k]) => !k.startsWith('webhook-')));
        expect(await post({ ...noStandard, 'service-signature': v1Only })).toBe(200);
        expect(await post(signed(SECRET_KEY, -3600))).toBe(400);
        expect(await post({ 'content-type': 'application/json' })).toBe(400);
        await new Promise((r) => setTimeout(r, 100));
        expect(out).not.toMatch(/^GET /m);
        const lines = out.split('\n').filter((l) => l.startsWith('POST /ruta'));
        expect(lines).toHaveLength(5);
        expect(lines[0]).toMatch(
          /order\.delivered\s+evt_1\s+order ord_1\s+status delivered\s+attempt 2\s+signature verified \(v1, v2, webhook-signature\)$/,
        );
        expect(lines[1]).toMatch(/signature INVALID \(v1 wrong, v2 wrong, webhook-signature wrong\)$/);
        expect(lines[2]).toMatch(/signature verified \(v1\)$/);
        expect(lines[3]).toMatch(/signature INVALID \(v1 ok, v2 wrong, webhook-signature wrong\)$/);
        expect(lines[4]).toMatch(/signature INVALID \(none sent\)$/);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    },
    SLOW,
  );

  it('names the order from Service-Order-Id, never the endpoint of a webhook.test or the message of a message.* event', () => {
    const line = (event: object, headers: Record<string, string>) =>
      describeDelivery(headers, Buffer.from(JSON.stringify(event)), undefined, 0);
    const test = line(
      { id: 'evt_2', event: 'webhook.test', data: { object: 'webhook_endpoint', id: 'we_1' } },
      { 'service-event': 'webhook.test', 'service-event-id': 'evt_2', 'service-attempt': '1' },
    );
    expect(test).not.toContain('we_1');
    expect(test).not.toContain('order');
    const message = line(
      { id: 'evt_3', event: 'message.failed', data: { id: 'msg_1', message: { id: 'msg_1' } } },
      { 'service-event': 'message.failed', 'service-order-id': 'ord_9', 'service-attempt': '1' },
    );
    expect(message).toContain('order ord_9');
    expect(message).not.toContain('order msg_1');
    // An order event without the header (a receiver that dropped it) still names its order.
    expect(line({ id: 'evt_4', event: 'order.created', data: { id: 'ord_4', status: 'pending' } }, {})).toContain(
      'order ord_4  status pending',
    );
  });
});
