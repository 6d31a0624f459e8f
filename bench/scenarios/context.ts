import type { DbKind, Server } from '../env.js';
import type { Loader, LoadResult } from '../load.js';

export interface Ctx {
  kind: DbKind;
  quick: boolean;
  loader: Loader;
  server: Server;
  dbUrl: string;
  accountId: string;
  merchantKey: string;
  /** The same merchant's live key: messages go out for live orders only (test mode suppresses them). */
  merchantLiveKey?: string;
  operatorKey: string;
  /** The environment the server runs with, for further processes on the same database. */
  env: Record<string, string>;
  log(msg: string): void;
}

/** A scenario that could not run: recorded as null in the results, with this reason beside it. */
export class Skip extends Error {}

export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

export function checked(what: string, r: LoadResult): LoadResult {
  if (r.errors > 0) throw new Skip(`${what}: ${r.errors} of ${r.requests} requests failed (non-2xx or socket errors)`);
  return r;
}

/** One JSON call to the server under test, for set-up steps; a 404 means the feature is not in this build. */
export async function api(
  ctx: Ctx,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const call = () =>
    fetch(ctx.server.base + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  // Seeding SQLite blocks this process for a while; a keep-alive socket the server closed meanwhile
  // fails on first use, so a network error (not an HTTP status) is retried once.
  const res = await call().catch(() => call());
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

export async function require2xx(ctx: Ctx, key: string, method: string, path: string, body?: unknown) {
  const r = await api(ctx, key, method, path, body);
  if (r.status === 404) {
    const code = r.json?.error?.code ?? 'no error code';
    throw new Skip(`${method} ${path.replace(/cou_\w+/, '{id}')} answered 404 (${code}): not in this build`);
  }
  if (r.status < 200 || r.status > 299) {
    throw new Skip(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.json).slice(0, 200)}`);
  }
  return r.json;
}

/** The nearest-rank percentile p (0–100) of `xs`, in any order; NaN for none. */
export function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}
