import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface SseMessage {
  id?: string;
  event: string;
  data: any;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Error body when the stream was refused. */
  body?: any;
  messages: SseMessage[];
  comments: string[];
  /** The last `id:` seen, as EventSource keeps it for Last-Event-ID. */
  lastId?: string;
  ended: Promise<void>;
  /** Resolves with the first message (already received or still to come) that matches. */
  next(match: (m: SseMessage) => boolean, what?: string): Promise<SseMessage>;
  /** Resolves once a comment matching `text` has arrived. */
  comment(text: string): Promise<void>;
  close(): void;
}

/** The bound base URL of an app, listening on a free port first if it is not yet. */
export async function listening(app: FastifyInstance): Promise<number> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

/**
 * A minimal EventSource over node:http that records everything (app.inject waits for the end of a
 * response, which a stream never reaches). Waits fail after `timeoutMs`: a bound for a broken
 * stream, never a measurement.
 */
export async function openStream(
  app: FastifyInstance,
  key: string | undefined,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
  path = '/v1/stream',
): Promise<SseStream> {
  const port = await listening(app);
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port,
        path,
        headers: { accept: 'text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      },
      (res) => {
        const waiters: (() => void)[] = [];
        const wake = () => {
          for (const w of waiters.splice(0)) w();
        };
        let buffer = '';
        let endedResolve!: () => void;
        const s: SseStream = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          messages: [],
          comments: [],
          ended: new Promise((r) => {
            endedResolve = r;
          }),
          next: (match, what = 'a matching message') =>
            new Promise((ok, fail) => {
              const timer = setTimeout(() => fail(new Error(`stream: no ${what} within ${timeoutMs} ms`)), timeoutMs);
              const check = () => {
                const m = s.messages.find(match);
                if (m) {
                  clearTimeout(timer);
                  ok(m);
                } else waiters.push(check);
              };
              check();
            }),
          comment: (text) =>
            new Promise((ok, fail) => {
              const timer = setTimeout(() => fail(new Error(`stream: no comment ${text}`)), timeoutMs);
              const check = () => {
                if (s.comments.includes(text)) {
                  clearTimeout(timer);
                  ok();
                } else waiters.push(check);
              };
              check();
            }),
          close: () => req.destroy(),
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let at = buffer.indexOf('\n\n');
          while (at !== -1) {
            const block = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            at = buffer.indexOf('\n\n');
            const m: Partial<SseMessage> & { data?: string } = {};
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) s.comments.push(line.slice(1).trim());
              const i = line.indexOf(':');
              const field = line.slice(0, i);
              const value = line.slice(i + 1).replace(/^ /, '');
              if (field === 'id') {
                m.id = value;
                s.lastId = value;
              } else if (field === 'event') m.event = value;
              else if (field === 'data') m.data = (m.data === undefined ? '' : `${m.data}\n`) + value;
            }
            if (m.data !== undefined) {
              let data: unknown = m.data;
              try {
                data = JSON.parse(m.data);
              } catch {}
              s.messages.push({ id: m.id, event: m.event ?? 'message', data });
            }
          }
          wake();
        });
        res.on('end', () => endedResolve());
        res.on('close', () => endedResolve());
        if (s.status !== 200) {
          let text = '';
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () => {
            try {
              s.body = JSON.parse(text);
            } catch {
              s.body = text;
            }
            resolve(s);
          });
          return;
        }
        resolve(s);
      },
    );
    req.on('error', reject);
  });
}
