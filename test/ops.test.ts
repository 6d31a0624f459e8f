import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { buildApp } from '../src/app.js';
import { listenThenStart } from '../src/server.js';
import { createContext, loggerOptions } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { RUTA_CLI } from './cli-run.js';
import {
  attachApp,
  client,
  describeEach,
  freshDatabaseUrl,
  type Merchant,
  newMerchant,
  startApp,
  type TestApp,
} from './helpers.js';
import { newUser, sessionClient, userSession } from './people-helpers.js';

class MemoryStream extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describeEach('operations', (engine) => {
  let t: TestApp;
  let m: Merchant;

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t);
  });
  afterAll(async () => t?.close());

  it('GET /healthz answers 200', async () => {
    const res = await client(t.app)('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['request-id']).toMatch(/^req_/);
    expect(res.headers['service-version']).toBe('2025-07-01');
  });

  it('GET /readyz answers 200 while the database answers, 503 when it does not', async () => {
    const res = await client(t.app)('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });

    const database = openDatabase(t.config.databaseUrl, { poolSize: 1 });
    const app = await buildApp(createContext(database, t.config));
    try {
      await client(app)('GET', '/readyz');
      // Kysely connects lazily, so the database is closed only once it has been used.
      await database.close();
      const down = await client(app)('GET', '/readyz');
      expect(down.status).toBe(503);
      expect(down.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
    } finally {
      await app.close();
    }
  });

  it('GET /metrics is Prometheus text with request counters', async () => {
    await client(t.app, m.test)('GET', '/v1/orders');
    const res = await client(t.app)('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.raw.body).toContain('# TYPE ruta_http_requests_total counter');
    expect(res.raw.body).toMatch(/ruta_http_requests_total\{method="GET",route="\/v1\/orders",status="200"\} \d+/);
    expect(res.raw.body).toContain('ruta_http_request_duration_seconds_bucket');
  });

  it('logs one JSON line per request with its id, and never the Authorization header or secrets', async () => {
    const stream = new MemoryStream();
    const app = await buildApp({ ...t.ctx, logger: pino(loggerOptions('debug'), stream) });
    try {
      const secret = `whsec_${'S'.repeat(43)}`;
      const ok = await client(app, m.test)('POST', '/v1/orders/quote', {
        customer: { name: 'Ana' },
        metadata: { secret },
      });
      const bad = await client(app, 'sk_test_thisisnotarealkeybutlookslikeone00')('GET', '/v1/orders', undefined, {
        'x-webhook-secret': secret,
      });
      expect(bad.status).toBe(401);
      const lines = stream.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const requests = lines.filter((l) => l.msg === 'request');
      expect(requests.length).toBe(2);
      expect(requests[0]).toMatchObject({ reqId: ok.headers['request-id'], method: 'POST', status: ok.status });
      expect(requests[1]).toMatchObject({ reqId: bad.headers['request-id'], status: 401 });
      expect(stream.text).not.toContain(m.test);
      expect(stream.text).not.toContain('sk_test_thisisnotarealkey');
      expect(stream.text).not.toContain(secret);
      expect(stream.text.toLowerCase()).not.toContain('bearer');
    } finally {
      await app.close();
    }
  });

  it('the request log never shows the tokens some URLs carry (invitation and reset links, signatures)', async () => {
    const stream = new MemoryStream();
    const app = await buildApp({ ...t.ctx, logger: pino(loggerOptions('info'), stream) });
    try {
      const lt = { ...t, app } as TestApp;
      const admin = sessionClient(lt, await userSession(lt, 'admin'));
      const invitation = await admin('POST', '/v1/invitations', {
        email: `log-${Date.now()}@example.com`,
        role: 'dispatcher',
      });
      expect(invitation.status).toBe(201);
      const invitationToken = String(invitation.body.url).split('#invitation=')[1];
      const dispatcher = await newUser(lt, 'dispatcher');
      const reset = await admin('POST', `/v1/users/${dispatcher.id}/password_reset`);
      expect(reset.status).toBe(201);
      const resetToken = String(reset.body.url).split('#password_reset=')[1];
      const anonymous = client(app);
      expect((await anonymous('GET', `/v1/invitations/${invitationToken}`)).status).toBe(200);
      expect((await anonymous('GET', `/v1/password_resets/${resetToken}`)).status).toBe(200);
      expect((await admin('POST', `/v1/invitations/${invitation.body.id}/revoke`)).status).toBe(200);
      await anonymous('GET', '/v1/files/file_x/content?expires=1&signature=f00dfeedcafe');
      await anonymous('GET', '/v1/unsubscribe?token=c2VjcmV0QGV4YW1wbGUuY29t.macmacmac');
      await anonymous('GET', '/v1/providers/meta/webhook?hub.mode=subscribe&hub.verify_token=vtokvtok&hub.challenge=1');
      const urls = stream.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((l) => l.msg === 'request')
        .map((l) => l.url);
      for (const secret of [invitationToken, resetToken, 'f00dfeedcafe', 'c2VjcmV0QGV4YW1wbGUuY29t', 'vtokvtok']) {
        expect(secret.length).toBeGreaterThan(5);
        expect(stream.text).not.toContain(secret);
      }
      expect(urls).toEqual(
        expect.arrayContaining([
          '/v1/invitations/[redacted]',
          '/v1/password_resets/[redacted]',
          `/v1/invitations/${invitation.body.id}/revoke`,
          '/v1/files/file_x/content?expires=1&signature=[redacted]',
          '/v1/unsubscribe?token=[redacted]',
          '/v1/providers/meta/webhook?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=1',
        ]),
      );
    } finally {
      await app.close();
    }
  });

  it('RUTA_TRUST_PROXY=1 (one proxy in front): each client is the address the proxy saw', async () => {
    const behind = await attachApp(t, { RUTA_TRUST_PROXY: '1', RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '1' });
    try {
      // Every request comes from the proxy's own address (inject's 127.0.0.1).
      const from = (xff: string) =>
        client(behind.app)('GET', '/track/NOSUCHCODE', undefined, { 'x-forwarded-for': xff });
      // Two clients of the proxy, one request each: two per-address counts, not one shared.
      expect((await from('203.0.113.40')).status).not.toBe(429);
      expect((await from('203.0.113.41')).status).not.toBe(429);
      // One hop trusted: what a client wrote in front of the proxy's entry is not believed.
      expect((await from('198.51.100.1, 203.0.113.42')).status).not.toBe(429);
      expect((await from('198.51.100.2, 203.0.113.42')).status).toBe(429);
    } finally {
      await behind.close();
    }
  });

  it('a serve that cannot listen has started no background work, and says which variable to change', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const { port } = taken.address() as AddressInfo;
    const app = Fastify();
    let started = false;
    const listening = listenThenStart(app, { port, host: '127.0.0.1' }, () => {
      started = true;
      return [];
    });
    await expect(listening).rejects.toThrow(`PORT ${port} is already in use on 127.0.0.1`);
    // The dispatcher and job runner would have claimed deliveries and plans for a process about to exit.
    expect(started).toBe(false);
    await app.close();

    const tdb = await freshDatabaseUrl(engine);
    onTestFinished(() => tdb.drop());
    const files = mkdtempSync(join(tmpdir(), 'ruta-files-'));
    onTestFinished(() => rmSync(files, { recursive: true, force: true }));
    const res = spawnSync(process.execPath, [...RUTA_CLI, 'serve'], {
      env: { ...process.env, DATABASE_URL: tdb.url, PORT: String(port), HOST: '127.0.0.1', RUTA_FILES_DIR: files },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain(`ruta: PORT ${port} is already in use on 127.0.0.1`);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });

  it('ruta serve shuts down cleanly on SIGTERM: stops listening, closes the database, exits 0', async () => {
    const tdb = await freshDatabaseUrl(engine);
    const files = mkdtempSync(join(tmpdir(), 'ruta-files-'));
    const child = spawn(process.execPath, [...RUTA_CLI, 'serve'], {
      env: { ...process.env, DATABASE_URL: tdb.url, PORT: '0', HOST: '127.0.0.1', RUTA_FILES_DIR: files },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Cleaned up in a hook rather than a finally: a test that times out while awaiting the port
    // never reaches its finally, and the server would be left running.
    onTestFinished(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await tdb.drop();
      rmSync(files, { recursive: true, force: true });
    });
    let out = '';
    child.stderr?.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout?.on('data', (d) => {
        out += d;
        const m = /"port":(\d+).*"msg":"ruta listening"/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', () => reject(new Error(`server exited early:\n${out}`)));
    });
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('"msg":"shutting down"');
    expect(out).not.toContain('shutdown failed');
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    if (engine === 'sqlite') {
      // SQLite folds the WAL back and deletes it only when the last connection closes properly.
      expect(existsSync(`${tdb.url.slice('sqlite:'.length)}-wal`)).toBe(false);
    }
  });
});
