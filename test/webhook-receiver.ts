import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

/** The receiver-side check, exactly as the README's "Verifying a webhook" recipe writes it. */
export function verifyRuta(rawBody: string | Buffer, signatureHeader: string, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return signatureHeader.split(',').some((part) => {
    const [key, value] = [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)];
    if (key !== 'v1' || !/^[0-9a-f]{64}$/.test(value)) return false;
    return timingSafeEqual(Buffer.from(value, 'hex'), expected);
  });
}

/**
 * The v2 recipe, exactly as docs/api.md ("Verifying a webhook", Node) writes it: HMAC over
 * `t + "." + body`, any v2 value may match (two during a rotation), and `t` within 5 minutes.
 */
export function verifyRutaV2(
  rawBody: string | Buffer,
  signatureHeader: string,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const parts = signatureHeader.split(',').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]);
  const t = parts.find(([k]) => k === 't')?.[1] ?? '';
  if (!/^\d+$/.test(t) || Math.abs(nowSeconds - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return parts.some(
    ([k, v]) => k === 'v2' && /^[0-9a-f]{64}$/.test(v) && timingSafeEqual(Buffer.from(v, 'hex'), expected),
  );
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (the socket stays open until the sender gives up). */
  hang?: boolean;
  delayMs?: number;
}

/** A real node:http receiver on 127.0.0.1 that records every request and answers via `respond`. */
export class Receiver {
  readonly received: Received[] = [];
  respond: (r: Received) => Reply = () => ({ status: 200, body: 'ok' });
  private server: Server;
  private hanging = new Set<import('node:http').ServerResponse>();

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = {
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.received.push(r);
        const reply = this.respond(r);
        if (reply.hang) {
          this.hanging.add(res);
          return;
        }
        setTimeout(() => {
          res.writeHead(reply.status ?? 200, reply.headers ?? {});
          res.end(reply.body ?? '');
        }, reply.delayMs ?? 0);
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls until `check` stops throwing (or returns true); fails with the last error after `timeoutMs`. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 15_000): Promise<Exclude<T, false>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== false) return v as Exclude<T, false>;
      last = new Error('condition is false');
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw last;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A frozen clock the test moves by hand. It starts an hour ahead, so what the API queued at real
 * time is already due for a dispatcher on this clock.
 */
export class Clock {
  t = Date.now() + 3600_000;
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

export function expectSigned(r: Received, secret: string): void {
  expect(verifyRuta(r.body, String(r.headers['service-signature']), secret)).toBe(true);
}
