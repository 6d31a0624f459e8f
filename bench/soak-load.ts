// The soak's clients and its webhook receiver (bench/soak.ts runs them). A client is what a merchant's
// integration behind a load balancer is: each operation carries an Idempotency-Key, and when an
// instance cannot be reached or answers 502/503 it is sent again, same key, to the next instance,
// for up to 30 s. An operation that still fails, or gets any other non-2xx, is a client error.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyDelivery } from '../src/cli/webhooks-listen.js';

const RETRY_FOR_MS = 30_000;

export interface OpStats {
  ok: number;
  errors: number;
  /** Sends that went to another instance after a refused connection or a 502/503. */
  failovers: number;
  latencies: number[];
  /** The last few errors, for the report. */
  samples: string[];
}

export const newStats = (): OpStats => ({ ok: 0, errors: 0, failovers: 0, latencies: [], samples: [] });

export class Clients {
  private next = 0;
  readonly stats = new Map<string, OpStats>();
  private inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly bases: string[],
    private readonly alive: (base: string) => boolean,
  ) {}

  private stat(kind: string): OpStats {
    let s = this.stats.get(kind);
    if (!s) {
      s = newStats();
      this.stats.set(kind, s);
    }
    return s;
  }

  /** Sends one operation with failover; resolves with the answer's JSON, or undefined on a client error. */
  send(kind: string, path: string, init: RequestInit & { key: string; idempotencyKey?: string }): Promise<unknown> {
    const p = this.run(kind, path, init);
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  private async run(kind: string, path: string, init: RequestInit & { key: string; idempotencyKey?: string }) {
    const s = this.stat(kind);
    const t0 = performance.now();
    const headers: Record<string, string> = { authorization: `Bearer ${init.key}`, ...(init.headers as object) };
    if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey;
    let last = '';
    let tries = 0;
    while (performance.now() - t0 < RETRY_FOR_MS) {
      // Round-robin over the instances a load balancer still believes alive (its health check).
      const live = this.bases.filter(this.alive);
      const base = live[this.next++ % live.length] as string;
      if (tries++ > 0) s.failovers++;
      try {
        const res = await fetch(base + path, { ...init, headers });
        const text = await res.text();
        if (res.status === 502 || res.status === 503) {
          last = `${res.status} ${text.slice(0, 120)}`;
          continue;
        }
        if (res.status >= 300) {
          s.errors++;
          if (s.samples.length < 5)
            s.samples.push(`${init.method ?? 'GET'} ${path}: ${res.status} ${text.slice(0, 200)}`);
          return undefined;
        }
        s.ok++;
        s.latencies.push(performance.now() - t0);
        return text ? JSON.parse(text) : {};
      } catch (err) {
        // Refused or cut connection: the instance died; another takes the same idempotency key.
        last = (err as Error).message;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    s.errors++;
    if (s.samples.length < 5) s.samples.push(`${init.method ?? 'GET'} ${path}: gave up after 30 s: ${last}`);
    return undefined;
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}

/** A merchant's webhook endpoint: verifies each delivery's signature, counts event ids and repeats. */
export class Receiver {
  readonly seen = new Map<string, number>();
  badSignatures = 0;
  private server!: Server;
  url = '';
  secret = '';

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    r.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const verdict = verifyDelivery(req.headers, body, r.secret, Math.floor(Date.now() / 1000));
        if (!verdict.ok) {
          r.badSignatures++;
          res.writeHead(400).end();
          return;
        }
        const id = (JSON.parse(body.toString()) as { id: string }).id;
        r.seen.set(id, (r.seen.get(id) ?? 0) + 1);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/ruta`;
    return r;
  }

  /** Event ids received more than once (at-least-once delivery: a send cut by a kill is repeated). */
  repeats(): number {
    let n = 0;
    for (const c of this.seen.values()) if (c > 1) n += c - 1;
    return n;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
