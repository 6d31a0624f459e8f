import { createInflateRaw } from 'node:zlib';
import { ApiError } from '../../shared/errors.js';

// The zip container of an .xlsx, read from the uploaded bytes without trusting them: the central
// directory says where each entry is and how large it claims to inflate; the claim is checked
// before anything is inflated, and the inflated bytes are counted as they come, because a zip can
// declare 1 KiB for an entry that inflates to gigabytes (issue #18, defect 7).

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  /** As the central directory declares it: a claim, not a fact. */
  declaredSize: number;
  /** The entry's bytes as stored in the file (compressed for deflate). */
  data: Buffer;
}

/** 64 KiB: the slice of work between two turns of the event loop. */
export const SLICE_BYTES = 64 * 1024;

const unreadable = (why: string) =>
  new ApiError('parameter_invalid', `The .xlsx workbook could not be read (${why}); open it and save it again.`);

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * The entries of a zip held in memory, by name, from its central directory. Refuses what a
 * workbook never needs and what would let two readers see different files: zip64, encryption,
 * methods other than stored and deflate, duplicate names, entries outside the file.
 */
export function readZip(bytes: Buffer, maxEntries: number): Map<string, ZipEntry> {
  // The end record is the last thing in the file, followed by a comment of at most 64 KiB.
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (bytes.readUInt32LE(i) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw unreadable('no zip directory');
  const count = bytes.readUInt16LE(end + 10);
  const dirSize = bytes.readUInt32LE(end + 12);
  const dirStart = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || dirStart === 0xffffffff) throw unreadable('zip64 is not used by workbooks this size');
  if (count > maxEntries) {
    throw new ApiError(
      'parameter_invalid',
      `The .xlsx workbook holds ${count} files; a workbook has a few dozen (at most ${maxEntries} are read).`,
    );
  }
  if (dirStart + dirSize > end) throw unreadable('the zip directory is outside the file');
  const entries = new Map<string, ZipEntry>();
  let p = dirStart;
  for (let n = 0; n < count; n++) {
    if (p + 46 > end || bytes.readUInt32LE(p) !== CENTRAL) throw unreadable('a damaged zip directory');
    const flags = bytes.readUInt16LE(p + 8);
    const method = bytes.readUInt16LE(p + 10);
    const compressed = bytes.readUInt32LE(p + 20);
    const declaredSize = bytes.readUInt32LE(p + 24);
    const nameLen = bytes.readUInt16LE(p + 28);
    const extraLen = bytes.readUInt16LE(p + 30);
    const commentLen = bytes.readUInt16LE(p + 32);
    const local = bytes.readUInt32LE(p + 42);
    const name = bytes.toString('utf8', p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    if (flags & 0x1) throw unreadable('it is encrypted');
    if (method !== 0 && method !== 8) throw unreadable(`zip method ${method}`);
    if (entries.has(name)) throw unreadable(`two files named ${name}`);
    if (local + 30 > dirStart || bytes.readUInt32LE(local) !== LOCAL) throw unreadable('a damaged zip entry');
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    if (start + compressed > dirStart) throw unreadable('a zip entry runs past its end');
    entries.set(name, { name, method, declaredSize, data: bytes.subarray(start, start + compressed) });
  }
  return entries;
}

/** The error for an entry that inflates past its cap: what it is, and the cap. */
export type TooLarge = (limit: number) => ApiError;

/**
 * The inflated bytes of `entry`, in slices of at most 64 KiB. Refused before inflating when the
 * directory declares more than `limit` bytes, and stopped as soon as the bytes actually inflated
 * pass `limit` (the declaration can lie). Inflation runs in libuv's thread pool; the zlib stream
 * inflates only as fast as the slices are taken, so at most a slice or two is held at a time.
 */
export async function* inflate(entry: ZipEntry, limit: number, tooLarge: TooLarge): AsyncGenerator<Buffer, void> {
  if (entry.declaredSize > limit) throw tooLarge(limit);
  if (entry.method === 0) {
    if (entry.data.length > limit) throw tooLarge(limit);
    for (let i = 0; i < entry.data.length; i += SLICE_BYTES) yield entry.data.subarray(i, i + SLICE_BYTES);
    return;
  }
  const z = createInflateRaw({ chunkSize: SLICE_BYTES });
  let total = 0;
  try {
    z.end(entry.data);
    for await (const chunk of z as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limit) throw tooLarge(limit);
      yield chunk;
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw unreadable('a damaged zip entry');
  } finally {
    z.destroy();
  }
}

/** A whole (small) entry as text, within `limit` bytes. */
export async function inflateText(entry: ZipEntry, limit: number, tooLarge: TooLarge): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of inflate(entry, limit, tooLarge)) parts.push(chunk);
  return decodeXml(Buffer.concat(parts));
}

/** XML parts of a workbook are UTF-8; invalid bytes refuse the file rather than turn into U+FFFD. */
export function decodeXml(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw unreadable('its XML is not UTF-8');
  }
}
