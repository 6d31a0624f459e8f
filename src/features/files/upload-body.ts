import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { FileType } from './schemas.js';
import { fileStore, storeUnavailable } from './store.js';

/**
 * An upload as the body parser leaves it: its bytes are already in the store under `id`, the row
 * is not written yet. Until `committed`, the object is removed when the request ends (the route's
 * onResponse), so a refused, replayed or failed upload leaves nothing behind.
 */
export interface StoredUpload {
  id: string;
  mime: FileType;
  size: number;
  sha256: string;
  createdAt: number;
  committed: boolean;
}

/** Enough leading bytes to tell every accepted type apart (WebP needs 12). */
export const MAGIC_BYTES = 12;

export function notTheImage(declared: string, actual: FileType | undefined): ApiError {
  const err = new ApiError(
    'parameter_invalid',
    `The body is not a valid ${declared} image${actual ? ` (it looks like ${actual})` : ''}.`,
  );
  // Raised inside body parsing, where Fastify reads the status from `statusCode`.
  return Object.assign(err, { statusCode: err.status });
}

/** What the bytes are, judged by their magic numbers rather than the client's Content-Type. */
export function sniff(bytes: Buffer): FileType | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP')
    return 'image/webp';
  return undefined;
}

const asBodyError = (err: ApiError) => Object.assign(err, { statusCode: err.status });

const tooLarge = (limit: number) =>
  asBodyError(new ApiError('request_too_large', `The image is larger than ${limit / 1024 / 1024} MiB.`));

const lengthMismatch = () =>
  asBodyError(new ApiError('malformed_request', 'The body length does not match the Content-Length header.'));

/**
 * Streams an upload into the file store, never holding it whole in memory:
 * - the declared type is checked against the magic bytes of the first chunk(s) (12 bytes at most),
 *   and a body that is not that image is refused then, unread, before the store sees a byte;
 * - then each chunk goes on to the store as it arrives, pulled at the store's pace (a slow store
 *   slows the client, nothing piles up here); with a Content-Length (what clients send) that is
 *   one streamed PUT of that length, without one S3 takes 5 MiB parts;
 * - the SHA-256 is updated chunk by chunk, so no single 10 MiB hash blocks other requests.
 * Callers have already authenticated and authorised the request (route `onRequest`).
 */
export async function receiveUpload(
  ctx: AppContext,
  req: FastifyRequest,
  payload: Readable,
  limit: number,
): Promise<StoredUpload> {
  const declared = (req.headers['content-type']?.split(';', 1)[0] ?? '').trim().toLowerCase();
  const header = req.headers['content-length'];
  const expected = header === undefined ? undefined : Number(header);
  if (expected !== undefined && expected > limit) throw tooLarge(limit);
  const known = expected !== undefined && Number.isSafeInteger(expected) && expected >= 0 ? expected : undefined;

  const chunks = payload[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const hash = createHash('sha256');
  let received = 0;
  // On an error the rest is left unread: Fastify answers with `Connection: close`, so the socket
  // and whatever the client still sends are dropped rather than read to the end.
  const next = async (): Promise<Buffer | undefined> => {
    let step: IteratorResult<Buffer>;
    try {
      step = await chunks.next();
    } catch (err) {
      throw Object.assign(err as Error, { statusCode: 400 });
    }
    if (step.done) {
      if (known !== undefined && received !== known) throw lengthMismatch();
      return undefined;
    }
    const chunk = step.value;
    if (received + chunk.length > limit) throw tooLarge(limit);
    if (known !== undefined && received + chunk.length > known) throw lengthMismatch();
    hash.update(chunk);
    received += chunk.length;
    return chunk;
  };

  // The head: enough bytes to tell the type.
  const head: Buffer[] = [];
  let sample = Buffer.alloc(0);
  let actual: FileType | undefined;
  let ended = false;
  for (;;) {
    const chunk = await next();
    if (chunk === undefined) {
      ended = true;
      break;
    }
    head.push(chunk);
    sample = Buffer.concat([sample, chunk.subarray(0, MAGIC_BYTES - sample.length)]);
    actual = sniff(sample);
    if (actual !== undefined || sample.length >= MAGIC_BYTES) break;
  }
  if (received === 0) {
    throw asBodyError(new ApiError('parameter_missing', 'The request body must hold the image bytes.'));
  }
  if (actual === undefined || actual !== declared) throw notTheImage(declared, actual);

  // The rest, straight through to the store. A failure of the client's body is recorded here so the
  // client hears about it (413, 400), not about the write it cut short.
  let failure: Error | undefined;
  async function* body(): AsyncGenerator<Buffer> {
    yield* head;
    if (ended) return;
    try {
      for (let chunk = await next(); chunk !== undefined; chunk = await next()) yield chunk;
    } catch (err) {
      failure = err as Error;
      throw err;
    }
  }
  const id = newId('file', ctx.clock());
  const store = fileStore(ctx);
  try {
    await store.put(id, Readable.from(body(), { objectMode: false }), { size: known, mime: actual });
  } catch (err) {
    if (failure) throw failure;
    ctx.logger.error({ err, file: id }, 'file store write failed');
    // An S3 PUT whose answer was lost may still have landed: leave nothing behind.
    await store.delete(id).catch(() => {});
    throw asBodyError(storeUnavailable());
  }
  return { id, mime: actual, size: received, sha256: hash.digest('hex'), createdAt: ctx.clock(), committed: false };
}
