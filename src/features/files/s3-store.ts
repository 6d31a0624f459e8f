import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { type FilesLocation, formatFilesUrl } from '../../shared/files-url.js';
import type { FileStore, StoredFile } from './file-store.js';

type S3Location = Extract<FilesLocation, { kind: 's3' }>;
type Sdk = typeof import('@aws-sdk/client-s3');

/** Parts of a body of unknown length (chunked upload); S3's smallest, so an upload holds at most one. */
const PART_BYTES = 5 * 1024 * 1024;
/** A readiness probe that waits longer than this reports the store as down. */
const CHECK_TIMEOUT_MS = 3000;
/**
 * A kept-alive connection idle this long is closed by us rather than reused. A server closes idle
 * connections on its own clock (Node's default, which S3-compatible stores built on it keep, is
 * 5 s); a PUT sent on a connection the server is closing at that moment fails with "socket hang
 * up", and the SDK cannot retry it, because a streamed body cannot be sent twice. The soak saw one
 * photo upload in five fail so (BENCHMARKS.md "Soak"). Below every common server's idle timeout.
 */
export const IDLE_SOCKET_MS = 4000;

/** No such object (GET: NoSuchKey; HEAD has no body, so NotFound). A missing bucket is an outage, not this. */
const isNotFound = (err: unknown) => {
  const name = (err as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound';
};

/**
 * Objects in an S3-compatible bucket under a prefix (`s3://bucket/prefix?…`), through the AWS SDK v3.
 * The SDK is loaded on first use, so a server on local files never pays for it.
 */
export class S3Store implements FileStore {
  readonly url: string;
  private client: Promise<{ sdk: Sdk; s3: S3Client }> | undefined;

  constructor(
    private readonly loc: S3Location,
    /** Tests shorten it beside a test server's shorter keep-alive. */
    private readonly idleSocketMs = IDLE_SOCKET_MS,
  ) {
    this.url = formatFilesUrl(loc);
  }

  private connect(): Promise<{ sdk: Sdk; s3: S3Client }> {
    this.client ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      s3: new sdk.S3Client({
        // region= wins, then the SDK's own (AWS_REGION); S3-compatible servers mostly ignore it.
        region: this.loc.region ?? (process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1'),
        ...(this.loc.endpoint ? { endpoint: this.loc.endpoint } : {}),
        forcePathStyle: this.loc.forcePathStyle,
        ...(this.loc.profile ? { profile: this.loc.profile } : {}),
        // Checksums only where S3 requires them: the SDK's default (a CRC32 trailer on every PUT,
        // sent as aws-chunked) is refused by several S3-compatible stores (GCS's interface, older
        // MinIO and R2). Integrity is Ruta's own: the SHA-256 taken during the upload is kept with
        // the row and checked by `ruta files migrate`.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        // The SDK's own agents (keep-alive, 50 sockets), plus a timeout that closes idle
        // connections before the server does (IDLE_SOCKET_MS). During a request the timeout only
        // raises an event; the SDK's own request timeouts decide.
        requestHandler: {
          httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 50, timeout: this.idleSocketMs }),
          httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 50, timeout: this.idleSocketMs }),
        },
      }),
    }));
    return this.client;
  }

  private key(key: string): string {
    return `${this.loc.prefix}${key}`;
  }

  async put(key: string, body: Readable, meta: { size?: number; mime: string; sha256?: string }): Promise<void> {
    const { sdk, s3 } = await this.connect();
    const params = {
      Bucket: this.loc.bucket,
      Key: this.key(key),
      Body: body,
      ContentType: meta.mime,
      ...(meta.sha256 ? { Metadata: { sha256: meta.sha256 } } : {}),
    };
    if (meta.size === undefined) {
      // No length to declare: multipart, one 5 MiB part in memory at a time.
      const { Upload } = await import('@aws-sdk/lib-storage');
      await new Upload({ client: s3, params, partSize: PART_BYTES, queueSize: 1, leavePartsOnError: false }).done();
      return;
    }
    // The SDK pipes a stream body into the request and never looks at its errors: abort the request
    // when the body fails, so S3 sees a short body and stores nothing.
    const abort = new AbortController();
    let failure: unknown;
    const onError = (err: Error) => {
      failure = err;
      abort.abort(err);
    };
    body.once('error', onError);
    try {
      await s3.send(new sdk.PutObjectCommand({ ...params, ContentLength: meta.size }), { abortSignal: abort.signal });
    } catch (err) {
      throw failure ?? err;
    } finally {
      body.removeListener('error', onError);
    }
  }

  async get(key: string): Promise<{ body: Readable; size: number } | null> {
    const { sdk, s3 } = await this.connect();
    try {
      const res = await s3.send(new sdk.GetObjectCommand({ Bucket: this.loc.bucket, Key: this.key(key) }));
      return { body: res.Body as Readable, size: res.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async head(key: string): Promise<StoredFile | null> {
    const { sdk, s3 } = await this.connect();
    try {
      const res = await s3.send(new sdk.HeadObjectCommand({ Bucket: this.loc.bucket, Key: this.key(key) }));
      const sha256 = res.Metadata?.sha256;
      return { size: res.ContentLength ?? 0, ...(sha256 ? { sha256 } : {}) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const { sdk, s3 } = await this.connect();
    await s3.send(new sdk.DeleteObjectCommand({ Bucket: this.loc.bucket, Key: this.key(key) }));
  }

  async *list(): AsyncIterable<{ key: string; size: number }> {
    const { sdk, s3 } = await this.connect();
    let token: string | undefined;
    do {
      const page = await s3.send(
        new sdk.ListObjectsV2Command({ Bucket: this.loc.bucket, Prefix: this.loc.prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key) yield { key: o.Key.slice(this.loc.prefix.length), size: o.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async check(): Promise<void> {
    const { sdk, s3 } = await this.connect();
    await s3.send(new sdk.HeadBucketCommand({ Bucket: this.loc.bucket }), {
      abortSignal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    });
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    (await client?.catch(() => undefined))?.s3.destroy();
  }
}
