import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Clock } from '../shared/context.js';
import { iso } from '../shared/time.js';
import { type Command, UsageError } from './command.js';

// `ruta webhooks listen`: a local receiver for trying webhooks out, like `stripe listen`. It checks
// deliveries the way a merchant's receiver would, from the documented headers alone, and shares no
// code with the sender on purpose: if the two disagree, this is where it shows.

/** A signed delivery older or newer than this is refused (the tolerance docs/webhooks.md recommends). */
export const TOLERANCE_SECONDS = 300;

export interface Verdict {
  /** Each signature scheme the delivery carried, and whether it verified. */
  schemes: { name: string; ok: boolean }[];
  ok: boolean;
}

function sameHex(a: string, b: string): boolean {
  return (
    a.length === b.length && /^[0-9a-f]+$/.test(a) && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'))
  );
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

const fresh = (t: number, nowSeconds: number) => Number.isInteger(t) && Math.abs(nowSeconds - t) <= TOLERANCE_SECONDS;

/**
 * `Service-Signature: t=…,v1=<hex HMAC(secret, body)>[,v2=<hex HMAC(secret, t.body)>]` (any value of
 * a scheme may match: two secrets sign during a rotation), and the Standard Webhooks
 * `webhook-signature: v1,<base64 HMAC(key, id.timestamp.body)>` keyed with the bytes after `whsec_`.
 */
export function verifyDelivery(
  headers: IncomingHttpHeaders,
  body: Buffer,
  secret: string,
  nowSeconds: number,
): Verdict {
  const schemes: Verdict['schemes'] = [];
  const hmacHex = (data: Buffer | string) => createHmac('sha256', secret).update(data).digest('hex');
  const service = header(headers, 'service-signature');
  if (service !== undefined) {
    const parts = service.split(',').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]);
    const values = (k: string) => parts.filter(([key]) => key === k).map(([, v]) => v as string);
    const t = values('t')[0] ?? '';
    const v1 = hmacHex(body);
    schemes.push({ name: 'v1', ok: values('v1').some((v) => sameHex(v, v1)) });
    if (values('v2').length > 0) {
      const v2 = hmacHex(Buffer.concat([Buffer.from(`${t}.`), body]));
      schemes.push({ name: 'v2', ok: fresh(Number(t), nowSeconds) && values('v2').some((v) => sameHex(v, v2)) });
    }
  }
  const standard = header(headers, 'webhook-signature');
  if (standard !== undefined) {
    const id = header(headers, 'webhook-id') ?? '';
    const ts = header(headers, 'webhook-timestamp') ?? '';
    const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
    const expected = createHmac('sha256', key)
      .update(Buffer.concat([Buffer.from(`${id}.${ts}.`), body]))
      .digest('base64');
    const given = standard.split(' ').map((s) => s.slice(s.indexOf(',') + 1));
    schemes.push({
      name: 'webhook-signature',
      ok: fresh(Number(ts), nowSeconds) && given.some((g) => sameText(g, expected)),
    });
  }
  return { schemes, ok: schemes.length > 0 && schemes.every((s) => s.ok) };
}

/** One line per delivery: what arrived and whether its signatures hold. */
export function describeDelivery(
  headers: IncomingHttpHeaders,
  body: Buffer,
  verdict: Verdict | undefined,
  now: number,
): string {
  let event: { id?: string; event?: string; data?: { id?: string; status?: string } } = {};
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {}
  const name = header(headers, 'service-event') ?? event.event ?? '(no event name)';
  const order = header(headers, 'service-order-id') ?? (name.startsWith('order.') ? event.data?.id : undefined);
  const bits = [
    iso(now).slice(11, 19),
    name,
    header(headers, 'service-event-id') ?? event.id ?? '',
    // The order is the Service-Order-Id header; `data.id` is an order's id only in an order.* event
    // (a webhook.test carries the endpoint's, a message.* event the message's).
    order ? `order ${order}` : '',
    event.data?.status ? `status ${event.data.status}` : '',
    `attempt ${header(headers, 'service-attempt') ?? '?'}`,
  ].filter(Boolean);
  const check = !verdict
    ? 'signature not checked (no --secret)'
    : verdict.ok
      ? `signature verified (${verdict.schemes.map((s) => s.name).join(', ')})`
      : `signature INVALID (${verdict.schemes.map((s) => `${s.name} ${s.ok ? 'ok' : 'wrong'}`).join(', ') || 'none sent'})`;
  return `${bits.join('  ')}  ${check}`;
}

/**
 * Listens on 127.0.0.1; answers 200, or 400 when a --secret was given and a signature is wrong.
 * Deliveries are POSTs; a GET or HEAD (a script waiting for the port, a browser) gets 200 and is not
 * printed, so that it does not read as a delivery with a bad signature.
 */
export function listen(opts: {
  port: number;
  secret?: string;
  print: (line: string) => void;
  clock: Clock;
}): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('listening\n');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const now = opts.clock();
      const verdict = opts.secret ? verifyDelivery(req.headers, body, opts.secret, Math.floor(now / 1000)) : undefined;
      opts.print(`${req.method} ${req.url}  ${describeDelivery(req.headers, body, verdict, now)}`);
      const status = verdict && !verdict.ok ? 400 : 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok\n' : 'bad signature\n');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve(server));
  });
}

export const webhooksListenCommand: Command = {
  name: 'webhooks listen',
  usage: `  webhooks listen [--port N] [--secret whsec_…]
                                          a local webhook receiver on 127.0.0.1 (default port 4242)
                                          that prints each delivery and checks its signatures; the
                                          server must run with RUTA_WEBHOOK_ALLOW_INSECURE=1 to send to it`,
  options: { port: { type: 'string' }, secret: { type: 'string' } },
  plan({ values }) {
    const port = values.port === undefined ? 4242 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535 || String(values.port).trim() === '') {
      throw new UsageError('--port must be an integer from 0 to 65535');
    }
    const secret = values.secret as string | undefined;
    if (secret !== undefined && !/^whsec_\S+$/.test(secret)) throw new UsageError('--secret must be a whsec_… secret');
    return async () => {
      // The context module (logger, metrics) only for its clock, when the receiver starts.
      const { systemClock } = await import('../shared/context.js');
      const server = await listen({ port, secret, print: (line) => console.log(line), clock: systemClock });
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      console.log(
        `Listening on http://127.0.0.1:${bound}/ (${secret ? 'checking signatures' : 'no --secret: signatures not checked'}).`,
      );
      console.log('Ruta sends to it only when started with RUTA_WEBHOOK_ALLOW_INSECURE=1. Ctrl-C stops.');
      const stop = () => server.close(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    };
  },
};
