import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../../shared/context.js';
import type { ErrorClass } from '../../shared/db/tables/webhook_attempts.js';
import { pinnedLookup, UnsafeUrlError, vetTarget } from './ssrf.js';

export type { ErrorClass };

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowInsecure: boolean;
  /** The dispatcher's (ctx.clock): a Retry-After date is read against it. */
  clock: Clock;
}

export interface SendResult {
  ok: boolean;
  status: number | null;
  errorClass: ErrorClass | null;
  error: string | null;
  /** First KiB of the response body, as text. */
  body: string | null;
  retryAfterMs: number | null;
  durationMs: number;
}

const BODY_KEEP = 1024;
/**
 * The statuses that send the client elsewhere (RFC 9110 §15.4). Another 3xx (304 Not Modified,
 * 300 Multiple Choices) is not a redirect, and its message says only its status.
 */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Keep-alive pools, one per origin, so repeated deliveries to a receiver reuse their connections.
 * Owned by one dispatcher (not the process): stopping it closes its sockets and nobody else's.
 */
export class Agents {
  private readonly pools = new Map<string, http.Agent>();

  /** `maxSockets`: the per-endpoint cap, so one receiver cannot hold every connection. */
  constructor(private readonly maxSockets: number) {}

  for(url: URL): http.Agent {
    let agent = this.pools.get(url.origin);
    if (!agent) {
      // As many idle sockets as busy ones: a smaller cap closed and reopened connections under load.
      const n = this.maxSockets;
      const opts = { keepAlive: true, maxSockets: n, maxFreeSockets: n, timeout: 60_000 };
      agent = url.protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts);
      this.pools.set(url.origin, agent);
    }
    return agent;
  }

  get size(): number {
    return this.pools.size;
  }

  destroy(): void {
    for (const a of this.pools.values()) a.destroy();
    this.pools.clear();
  }
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|EPROTO$)/;

function classify(err: NodeJS.ErrnoException): ErrorClass {
  const code = err.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NONAME') return 'dns';
  if (TLS_CODES.test(code) || /certificate|ssl|tls/i.test(err.message)) return 'tls';
  return 'connect';
}

/** Retry-After is seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * One POST with one overall timer (DNS, connect, TLS, headers) bounded by timeoutMs. The host is
 * vetted and the socket pinned to the vetted address. Redirects are never followed: a 3xx fails.
 */
export async function send(req: SendRequest, agents: Agents): Promise<SendResult> {
  const started = performance.now();
  const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({
    ...r,
    durationMs: Math.round(performance.now() - started),
  });
  const fail = (errorClass: ErrorClass, error: string) =>
    done({ ok: false, status: null, errorClass, error, body: null, retryAfterMs: null });

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), req.timeoutMs);
  });
  try {
    const vetted = await Promise.race([vetTarget(req.url, req.allowInsecure), deadline]);
    if (vetted === 'timeout') return fail('timeout', `no answer within ${req.timeoutMs} ms (resolving the host)`);
    const { url, address, family } = vetted;
    const mod = url.protocol === 'https:' ? https : http;
    return await new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (r: SendResult) => {
        if (settled) return;
        settled = true;
        resolve(r);
      };
      const request = mod.request(url, {
        method: 'POST',
        agent: agents.for(url),
        headers: { ...req.headers, 'Content-Length': String(Buffer.byteLength(req.body)) },
        ...(address && family ? { lookup: pinnedLookup(address, family) } : {}),
      });
      let onDeadline = () => finish(fail('timeout', `no answer within ${req.timeoutMs} ms`));
      void deadline.then(() => {
        onDeadline();
        request.destroy();
      });
      request.on('error', (err: NodeJS.ErrnoException) => finish(fail(classify(err), err.message)));
      request.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const chunks: Buffer[] = [];
        let kept = 0;
        const result = () =>
          done({
            ok,
            status,
            errorClass: ok ? null : 'http',
            error: ok ? null : REDIRECTS.has(status) ? `redirect (${status}) not followed` : `HTTP ${status}`,
            body: kept > 0 ? Buffer.concat(chunks).toString('utf8').slice(0, BODY_KEEP) : null,
            retryAfterMs: parseRetryAfter(res.headers['retry-after'], req.clock()),
          });
        res.on('data', (c: Buffer) => {
          if (kept < BODY_KEEP) {
            chunks.push(c.subarray(0, BODY_KEEP - kept));
            kept += Math.min(c.length, BODY_KEEP - kept);
          }
        });
        // The status decided the outcome; a body cut short by the timer does not change it.
        res.on('end', () => finish(result()));
        res.on('error', () => finish(result()));
        res.on('aborted', () => finish(result()));
        onDeadline = () => finish(result());
      });
      request.end(req.body);
    });
  } catch (err) {
    if (err instanceof UnsafeUrlError) return fail('dns', err.message);
    return fail('connect', (err as Error).message);
  } finally {
    clearTimeout(timer);
  }
}
