import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';
import { waitFor } from './webhook-receiver.js';

/** A self-signed certificate for 127.0.0.1, made with openssl for this run only. */
function selfSigned(dir: string): { key: Buffer; cert: Buffer } {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

const listen = (server: http.Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

describeEach('webhook TLS failures', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let dir: string;
  let tlsServer: https.Server;
  let plainServer: http.Server;
  let tlsPort: number;
  let plainPort: number;
  let hits = 0;
  let dispatcher: Dispatcher | undefined;

  beforeAll(async () => {
    // Insecure mode lets a loopback https URL through the SSRF check; it does not relax certificate checks.
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1', RUTA_WEBHOOK_RETRY_SCHEDULE: '3600' });
    m = await newMerchant(t);
    dir = mkdtempSync(join(tmpdir(), 'ruta-tls-'));
    const handler = (_req: http.IncomingMessage, res: http.ServerResponse) => {
      hits++;
      res.end('ok');
    };
    tlsServer = https.createServer(selfSigned(dir), handler);
    plainServer = http.createServer(handler);
    tlsPort = await listen(tlsServer);
    plainPort = await listen(plainServer);
  });
  afterAll(async () => {
    await dispatcher?.stop(1000);
    tlsServer?.closeAllConnections();
    plainServer?.closeAllConnections();
    await new Promise((r) => tlsServer?.close(r));
    await new Promise((r) => plainServer?.close(r));
    if (dir) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  it('the receiver itself is sound: it answers a client that trusts its certificate', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      https
        .get(`https://127.0.0.1:${tlsPort}/`, { rejectUnauthorized: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject);
    });
    expect(status).toBe(200);
    expect(hits).toBe(1);
    hits = 0;
  });

  it('an untrusted certificate, or plain HTTP behind an https URL, fails with error class tls', async () => {
    const call = client(t.app, m.test);
    const endpoints: Record<string, string> = {};
    for (const [name, url] of [
      ['self-signed', `https://127.0.0.1:${tlsPort}/hook`],
      ['not TLS', `https://127.0.0.1:${plainPort}/hook`],
    ]) {
      const res = await call('POST', '/v1/webhook_endpoints', { url, events: ['order.created'] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      endpoints[name] = res.body.id;
    }
    dispatcher = new Dispatcher(t.ctx, { pollMs: 50 }).start();
    const order = (await call('POST', '/v1/orders', validOrder())).body;

    for (const [name, id] of Object.entries(endpoints)) {
      const log = await waitFor(async () => {
        const res = await call('GET', `/v1/webhook_endpoints/${id}/deliveries`);
        expect(res.status).toBe(200);
        return res.body.data.length > 0 && res.body.data;
      });
      expect(log, name).toHaveLength(1);
      expect(log[0], name).toMatchObject({
        object: 'webhook_attempt',
        attempt: 1,
        succeeded: false,
        error_class: 'tls',
        response_status: null,
        response_body: null,
      });
      expect(log[0].error_message, name).toBeTypeOf('string');
      const events = await call('GET', `/v1/events?order=${order.id}&delivery_success=false`);
      expect(
        events.body.data.map((e: { event: string }) => e.event),
        name,
      ).toEqual(['order.created']);
    }
    const { error_message: selfSignedMessage } = (
      await call('GET', `/v1/webhook_endpoints/${endpoints['self-signed']}/deliveries`)
    ).body.data[0];
    expect(selfSignedMessage).toMatch(/certificate/i);
    // The handshake failed, so no byte of the event reached either receiver.
    expect(hits).toBe(0);
  });
});
