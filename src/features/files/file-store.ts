import type { Readable } from 'node:stream';

/** What a store knows of one object. `sha256` only where the store keeps it (S3 metadata). */
export interface StoredFile {
  size: number;
  sha256?: string;
}

/**
 * Where the bytes of uploaded files live (RUTA_FILES_URL): a directory, or an S3-compatible bucket.
 * Keys are file ids. The database row is the record of a file; the store only holds its bytes, so
 * an object without a row is garbage and a row without its object answers 404.
 */
export interface FileStore {
  /** The canonical files URL (holds no secret). */
  readonly url: string;
  /**
   * Writes `body` under `key`, visible to readers only once whole (temp file + rename; an S3 PUT
   * is atomic). `size` is the body's length when known: S3 then takes it as one streamed PUT.
   * If `body` fails, the write is abandoned and nothing is left under `key`.
   */
  put(key: string, body: Readable, meta: { size?: number; mime: string; sha256?: string }): Promise<void>;
  /** The object as a stream and its length, or null when there is none. */
  get(key: string): Promise<{ body: Readable; size: number } | null>;
  head(key: string): Promise<StoredFile | null>;
  /** Removes the object; no error if there is none. */
  delete(key: string): Promise<void>;
  /** Every object, in key order. */
  list(): AsyncIterable<{ key: string; size: number }>;
  /** Throws unless the store answers (the directory is writable, the bucket reachable with these credentials). */
  check(): Promise<void>;
  close(): Promise<void>;
}
