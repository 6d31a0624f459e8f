import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { describeEach, freshDatabaseUrl } from './helpers.js';

/**
 * Shutdown order (src/server.ts): app.close(), then background services, then the database. These
 * tests prove app.close() waits for a request still being handled, even one whose client hung up,
 * so its queries never meet a closed database.
 */
describeEach('graceful shutdown', (engine) => {
  async function slowApp() {
    const tdb = await freshDatabaseUrl(engine);
    const config = loadConfig({ DATABASE_URL: tdb.url, RUTA_LOG_LEVEL: 'silent' });
    const database = openDatabase(config.databaseUrl);
    await migrate(database);
    const app = await buildApp(createContext(database, config));
    const steps: string[] = [];
    let started!: () => void;
    const handlerStarted = new Promise<void>((r) => {
      started = r;
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    // A request that is slow to finish and then reads the database, like any real handler.
    app.get('/slow', { schema: { hide: true } }, async () => {
      started();
      await gate;
      try {
        const n = await database.db
          .selectFrom('accounts')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst();
        steps.push('query ok');
        return { n: Number(n?.n) };
      } catch (err) {
        steps.push(`query failed: ${(err as Error).message}`);
        throw err;
      }
    });
    await app.ready();
    return { app, database, tdb, steps, handlerStarted, release };
  }

  /** Closes the app, records when it finished, then closes the database as server.ts does. */
  async function shutDown(s: Awaited<ReturnType<typeof slowApp>>) {
    const closed = s.app.close().then(() => s.steps.push('app closed'));
    // Let close() run as far as it can on its own while the handler is held.
    await new Promise((r) => setTimeout(r, 50));
    s.steps.push('handler released');
    s.release();
    await closed;
    await s.database.close();
    s.steps.push('database closed');
    await s.tdb.drop();
  }

  it('waits for a request whose client hung up before closing the database', async () => {
    const s = await slowApp();
    await s.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = s.app.server.address() as AddressInfo;
    const req = http.get({ host: '127.0.0.1', port, path: '/slow' });
    req.on('error', () => {});
    await s.handlerStarted;
    req.destroy();
    await new Promise((r) => req.on('close', r));
    await shutDown(s);
    expect(s.steps).toEqual(['handler released', 'query ok', 'app closed', 'database closed']);
  });

  it('waits for an in-flight request and answers it; a request pipelined behind it gets the 503 Error body', async () => {
    const s = await slowApp();
    await s.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = s.app.server.address() as AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (c) => {
      received += c;
    });
    const ended = new Promise((r) => socket.on('close', r));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await s.handlerStarted;
    const closing = s.app.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    s.release();
    await closing;
    s.steps.push('app closed');
    await s.database.close();
    await s.tdb.drop();
    await ended;
    const answers = received.split(/(?=HTTP\/1\.1 )/);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(answers[0]).toContain('{"n":0}');
    expect(answers).toHaveLength(2);
    // The pipelined request arrived while closing: refused with the Error body, not Fastify's own 503.
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(answers[1]).toContain('"type":"api_error","code":"service_unavailable"');
    expect(answers[1].toLowerCase()).toContain('request-id: req_');
    expect(answers[1].toLowerCase()).toContain('connection: close');
    expect(s.steps).toEqual(['query ok', 'app closed']);
  });

  it('waits for an injected request too (no socket involved)', async () => {
    const s = await slowApp();
    const pending = s.app.inject({ method: 'GET', url: '/slow' });
    await s.handlerStarted;
    await shutDown(s);
    expect((await pending).statusCode).toBe(200);
    expect(s.steps).toEqual(['handler released', 'query ok', 'app closed', 'database closed']);
  });
});
