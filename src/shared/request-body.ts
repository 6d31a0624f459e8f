import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact request body text, for idempotency fingerprints. */
    rawBody?: string;
  }
}

/**
 * The first key of a parsed body that secure-json-parse refuses: `__proto__`, or a `constructor`
 * holding a `prototype` (either would reach Object.prototype once the body is merged or copied).
 * Breadth first, as secure-json-parse scans, so the key named is the one it tripped on.
 */
function forbiddenKey(root: unknown): { path: string; key: string } | undefined {
  let level: { value: unknown; path: string }[] = [{ value: root, path: '' }];
  while (level.length > 0) {
    const next: typeof level = [];
    for (const { value, path } of level) {
      if (value === null || typeof value !== 'object') continue;
      const node = value as Record<string, unknown>;
      const at = (k: string | number) => (typeof k === 'number' ? `${path}[${k}]` : path === '' ? k : `${path}.${k}`);
      if (Object.hasOwn(node, '__proto__')) return { path: at('__proto__'), key: '__proto__' };
      const ctor = Object.hasOwn(node, 'constructor') ? node.constructor : undefined;
      if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) {
        return { path: at('constructor'), key: 'constructor' };
      }
      if (Array.isArray(node)) for (let i = 0; i < node.length; i++) next.push({ value: node[i], path: at(i) });
      else for (const [k, v] of Object.entries(node)) next.push({ value: v, path: at(k) });
    }
    level = next;
  }
  return undefined;
}

/** A request carries a body when it says how long it is (not 0) or that it is chunked. */
function hasBody(h: IncomingHttpHeaders): boolean {
  return h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0');
}

/**
 * Why a JSON body was refused. Valid JSON with a forbidden key is said to be exactly that, with the
 * key's place in `param`: "not valid JSON" would send the client looking for a syntax error that
 * is not there.
 */
function refusal(text: string): ApiError {
  let plain: unknown;
  try {
    // JSON.parse defines `__proto__` as an own property (it never sets the prototype), so this
    // second parse of a refused body is safe; it only runs when the secure parse failed.
    plain = JSON.parse(text);
  } catch {
    return new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  const found = forbiddenKey(plain);
  if (found === undefined) return new ApiError('invalid_json', 'The request body is not valid JSON.');
  const what = found.key === '__proto__' ? 'a "__proto__" key' : 'a "constructor" key holding a "prototype"';
  return new ApiError(
    'invalid_json',
    `The request body is refused: it contains ${what} (at ${found.path}), which could alter object prototypes. Remove or rename that key.`,
    found.path,
  );
}

/**
 * How every route reads a request body. JSON is decoded here rather than by Fastify (which would
 * turn invalid UTF-8 into U+FFFD, silently changing what the client sent): a body that is not UTF-8
 * is refused whole.
 */
export function installRequestBodies(app: FastifyInstance): void {
  // Before any parser (JSON, images, spreadsheets) reads a byte: a compressed body would otherwise
  // be read as it is, and refused as invalid UTF-8 or a mismatched image, which says nothing of the
  // real cause. RFC 9110 §15.5.16: an unsupported content coding is 415, with Accept-Encoding
  // naming what would be accepted.
  app.addHook('preParsing', async (req, _reply, payload) => {
    const coding = req.headers['content-encoding'];
    if (coding === undefined || !hasBody(req.headers)) return payload;
    const codings = coding
      .split(',')
      .map((c) => c.trim().toLowerCase())
      .filter((c) => c !== '' && c !== 'identity');
    if (codings.length === 0) return payload;
    throw new ApiError(
      'unsupported_media_type',
      `Unsupported Content-Encoding: ${codings.join(', ').slice(0, 100)}. Ruta reads request bodies uncompressed only; send the body without a Content-Encoding (or with identity).`,
      undefined,
      { 'Accept-Encoding': 'identity' },
    );
  });
  app.removeContentTypeParser(['application/json', 'text/plain']);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(new ApiError('invalid_json', 'The request body is not valid UTF-8.'), undefined);
    }
    req.rawBody = text;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(refusal(text), undefined);
    }
  });
}
