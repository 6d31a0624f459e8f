import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../shared/errors.js';
import { MAGIC_BYTES, notTheImage, sniff } from './service.js';

/** An image body as read off the wire: the bytes and their SHA-256, computed while they arrived. */
export interface ImageBody {
  bytes: Buffer;
  sha256: string;
}

const tooLarge = (limit: number) => {
  const err = new ApiError('request_too_large', `The image is larger than ${limit / 1024 / 1024} MiB.`);
  return Object.assign(err, { statusCode: err.status });
};

/**
 * Reads an upload without ever holding up the event loop for long or copying it twice:
 * - the declared type is checked against the magic bytes of the first chunk(s) (12 bytes at most),
 *   and a body that is not that image is refused then, unread;
 * - with a Content-Length (what clients send), the bytes land in one buffer of that size as they
 *   arrive: one copy of the upload in memory, not chunks plus their concatenation;
 * - the SHA-256 is updated chunk by chunk (a 64 KiB chunk is microseconds), so no single 10 MiB
 *   hash blocks every other request.
 * Callers have already authenticated and authorised the request (route `onRequest`).
 */
export function readImageBody(
  req: FastifyRequest,
  payload: Readable,
  limit: number,
  done: (err: Error | null, body?: ImageBody) => void,
): void {
  const declared = (req.headers['content-type']?.split(';', 1)[0] ?? '').trim().toLowerCase();
  const header = req.headers['content-length'];
  const expected = header === undefined ? undefined : Number(header);
  if (expected !== undefined && expected > limit) {
    done(tooLarge(limit));
    return;
  }
  const known = expected !== undefined && Number.isSafeInteger(expected) && expected >= 0;
  const whole = known ? Buffer.allocUnsafe(expected) : undefined;
  const chunks: Buffer[] = [];
  const hash = createHash('sha256');
  let received = 0;
  let head = Buffer.alloc(0);
  let decided = false;
  let finished = false;

  const finish = (err: Error | null, body?: ImageBody) => {
    if (finished) return;
    finished = true;
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    // On an error the rest is left unread (removing the listener alone would leave the stream
    // flowing): Fastify answers with `Connection: close`, so the socket and whatever the client
    // still sends are dropped rather than read to the end.
    if (err) payload.pause();
    done(err, body);
  };

  function onData(chunk: Buffer) {
    if (received + chunk.length > limit || (whole && received + chunk.length > whole.length)) {
      return finish(whole && received + chunk.length <= limit ? lengthMismatch() : tooLarge(limit));
    }
    if (!decided) {
      head = Buffer.concat([head, chunk.subarray(0, MAGIC_BYTES - head.length)]);
      const actual = sniff(head);
      if (actual !== undefined || head.length >= MAGIC_BYTES) {
        decided = true;
        if (actual !== declared) return finish(notTheImage(declared, actual));
      }
    }
    hash.update(chunk);
    if (whole) chunk.copy(whole, received);
    else chunks.push(chunk);
    received += chunk.length;
  }
  function onEnd() {
    if (whole && received !== whole.length) return finish(lengthMismatch());
    finish(null, { bytes: whole ?? Buffer.concat(chunks, received), sha256: hash.digest('hex') });
  }
  function onError(err: Error) {
    finish(Object.assign(err, { statusCode: 400 }));
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
}

function lengthMismatch(): ApiError {
  const err = new ApiError('malformed_request', 'The body length does not match the Content-Length header.');
  return Object.assign(err, { statusCode: err.status });
}
