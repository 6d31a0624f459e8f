import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small S3 server for tests: the subset of the protocol Ruta's file store uses, over HTTP on
 * 127.0.0.1, path-style, objects in memory. It answers as S3 does, so the real AWS SDK is exercised:
 * every request must carry a valid AWS Signature V4 (recomputed here from the known secret),
 * a signed payload hash must match the body, errors are S3's XML bodies with S3's codes and
 * statuses (HEAD errors have no body), and a PUT without Content-Length is 411, as on AWS.
 *
 * Operations: CreateBucket, HeadBucket, ListObjectsV2, PutObject, GetObject (with Range),
 * HeadObject, DeleteObject, CreateMultipartUpload, UploadPart, CompleteMultipartUpload,
 * AbortMultipartUpload. Anything else is 501 NotImplemented, so a new call the store starts making
 * fails loudly here instead of passing by accident.
 *
 * `on('receive', {bucket, key, received})` fires for every chunk of an object body as it arrives,
 * which lets a test see that an upload reaches the store while its client is still sending;
 * `on('answered', {op, status, key})` for every answer, as it is logged in `log`.
 */

export interface StoredObject {
  data: Buffer;
  etag: string;
  contentType: string;
  metadata: Record<string, string>;
  lastModified: Date;
}

interface MultipartUpload {
  bucket: string;
  key: string;
  contentType: string;
  metadata: Record<string, string>;
  parts: Map<number, { data: Buffer; etag: string }>;
}

export interface S3ServerOptions {
  accessKeyId?: string;
  secretAccessKey?: string;
  region?: string;
  buckets?: string[];
}

/** The smallest part S3 accepts, except for the last one of an upload. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
const SKEW_MS = 15 * 60 * 1000;

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

const xmlEscape = (s: string) =>
  s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] as string);

const tag = (name: string, value: string | number | boolean) => `<${name}>${xmlEscape(String(value))}</${name}>`;

/** RFC 3986 encoding, as SigV4's canonical query string uses it. */
const escapeUri = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
const sha256hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const md5hex = (data: Buffer) => createHash('md5').update(data).digest('hex');

export class S3TestServer extends EventEmitter {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  readonly buckets = new Map<string, Map<string, StoredObject>>();
  readonly uploads = new Map<string, MultipartUpload>();
  /** Every request answered: the operation and its status, for tests to assert on. */
  readonly log: { op: string; status: number; key?: string }[] = [];
  private server!: Server;
  endpoint = '';

  private constructor(opts: S3ServerOptions) {
    super();
    this.accessKeyId = opts.accessKeyId ?? 'RUTATESTACCESSKEY';
    this.secretAccessKey = opts.secretAccessKey ?? 'ruta-test-secret-access-key';
    this.region = opts.region ?? 'us-east-1';
    for (const b of opts.buckets ?? []) this.buckets.set(b, new Map());
  }

  static async start(opts: S3ServerOptions = {}): Promise<S3TestServer> {
    const s = new S3TestServer(opts);
    s.server = createServer((req, res) => {
      s.handle(req, res).catch((err) => s.fail(req, res, err, 'unknown'));
    });
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    s.endpoint = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`;
    return s;
  }

  /** Objects of one bucket (created empty if needed). */
  objects(bucket: string): Map<string, StoredObject> {
    let b = this.buckets.get(bucket);
    if (!b) {
      b = new Map();
      this.buckets.set(bucket, b);
    }
    return b;
  }

  /** An `s3://` files URL for this server, path-style as a local endpoint needs. */
  filesUrl(bucket: string, prefix = ''): string {
    const p = prefix ? `/${prefix}` : '';
    return `s3://${bucket}${p}?endpoint=${encodeURIComponent(this.endpoint)}&region=${this.region}&force_path_style=true`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://s3.local');
    const rawPath = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const [, bucket = '', ...rest] = rawPath.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const q = url.searchParams;
    const method = req.method ?? 'GET';
    const op = operation(method, key, q);
    try {
      this.authenticate(req, rawPath, url.search.slice(1));
      if (op === 'unknown') throw new S3Error(501, 'NotImplemented', `Not implemented here: ${method} ${rawPath}`);
      if (op === 'CreateBucket') {
        await this.readBody(req);
        if (this.buckets.has(bucket))
          throw new S3Error(409, 'BucketAlreadyOwnedByYou', 'Bucket exists', { BucketName: bucket });
        this.buckets.set(bucket, new Map());
        return this.send(req, res, op, 200, '', { Location: `/${bucket}` });
      }
      const objects = this.buckets.get(bucket);
      if (!objects)
        throw new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
      switch (op) {
        case 'HeadBucket':
          return this.send(req, res, op, 200, '');
        case 'ListObjectsV2':
          return this.send(req, res, op, 200, this.list(bucket, objects, q));
        case 'PutObject': {
          if (req.headers['x-amz-copy-source'])
            throw new S3Error(501, 'NotImplemented', 'CopyObject is not implemented here');
          const data = await this.readBody(req, { bucket, key, needLength: true });
          const obj: StoredObject = {
            data,
            etag: `"${md5hex(data)}"`,
            contentType: req.headers['content-type'] ?? 'binary/octet-stream',
            metadata: metadataOf(req),
            lastModified: new Date(),
          };
          objects.set(key, obj);
          return this.send(req, res, op, 200, '', { ETag: obj.etag }, key);
        }
        case 'GetObject':
        case 'HeadObject':
          return this.getObject(req, res, op, objects, key);
        case 'DeleteObject':
          await this.readBody(req);
          objects.delete(key);
          return this.send(req, res, op, 204, '', {}, key);
        case 'CreateMultipartUpload': {
          await this.readBody(req);
          const uploadId = randomBytes(16).toString('hex');
          this.uploads.set(uploadId, {
            bucket,
            key,
            contentType: req.headers['content-type'] ?? 'binary/octet-stream',
            metadata: metadataOf(req),
            parts: new Map(),
          });
          const body = `<InitiateMultipartUploadResult>${tag('Bucket', bucket)}${tag('Key', key)}${tag('UploadId', uploadId)}</InitiateMultipartUploadResult>`;
          return this.send(req, res, op, 200, body, {}, key);
        }
        case 'UploadPart': {
          const upload = this.uploadOf(q, bucket, key);
          const n = Number(q.get('partNumber'));
          if (!Number.isInteger(n) || n < 1 || n > 10000)
            throw new S3Error(400, 'InvalidArgument', 'Part number must be 1-10000');
          const data = await this.readBody(req, { bucket, key, needLength: true });
          const etag = `"${md5hex(data)}"`;
          upload.parts.set(n, { data, etag });
          return this.send(req, res, op, 200, '', { ETag: etag }, key);
        }
        case 'CompleteMultipartUpload':
          return this.complete(req, res, objects, bucket, key, q);
        case 'AbortMultipartUpload':
          await this.readBody(req);
          this.uploadOf(q, bucket, key);
          this.uploads.delete(q.get('uploadId') ?? '');
          return this.send(req, res, op, 204, '', {}, key);
      }
    } catch (err) {
      this.fail(req, res, err, op, key);
    }
  }

  private fail(req: IncomingMessage, res: ServerResponse, err: unknown, op: string, key?: string): void {
    const e = err instanceof S3Error ? err : new S3Error(500, 'InternalError', 'We encountered an internal error.');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // A refused request's body is left unread; the connection goes with the answer.
    res.setHeader('Connection', 'close');
    const extra = Object.entries(e.extra)
      .map(([k, v]) => tag(k, v))
      .join('');
    const body = `<Error>${tag('Code', e.code)}${tag('Message', e.message)}${key ? tag('Key', key) : ''}${extra}${tag('RequestId', 'TEST')}</Error>`;
    this.send(req, res, op, e.status, body, {}, key);
  }

  private send(
    req: IncomingMessage,
    res: ServerResponse,
    op: string,
    status: number,
    body: string | Buffer,
    headers: Record<string, string> = {},
    key?: string,
  ): void {
    this.log.push({ op, status, key });
    this.emit('answered', { op, status, key });
    res.statusCode = status;
    res.setHeader('x-amz-request-id', randomBytes(8).toString('hex').toUpperCase());
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    const payload =
      typeof body === 'string' && body !== '' ? Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`) : body;
    if (typeof body === 'string' && body !== '') res.setHeader('Content-Type', 'application/xml');
    if (!res.hasHeader('Content-Length')) res.setHeader('Content-Length', Buffer.byteLength(payload));
    // HEAD answers carry the headers of the GET they stand for, never a body (errors included).
    if (req.method === 'HEAD') res.end();
    else res.end(payload);
  }

  /** AWS Signature Version 4 in the Authorization header, checked as S3 checks it. */
  private authenticate(req: IncomingMessage, rawPath: string, rawQuery: string): void {
    const auth = req.headers.authorization;
    if (!auth) throw new S3Error(403, 'AccessDenied', 'Access Denied');
    const m = /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
    if (!m) throw new S3Error(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.');
    const [, credential = '', signedHeaders = '', signature = ''] = m;
    const [akid, date, region, service, terminator] = credential.split('/');
    if (akid !== this.accessKeyId) {
      throw new S3Error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    }
    if (region !== this.region || service !== 's3' || terminator !== 'aws4_request') {
      throw new S3Error(
        400,
        'AuthorizationHeaderMalformed',
        `The authorization header is malformed; the region '${region}' is wrong; expecting '${this.region}'`,
      );
    }
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    const when = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
    if (!when || amzDate.slice(0, 8) !== date)
      throw new S3Error(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
    const [, y, mo, d, h, mi, s] = when.map(Number) as number[];
    if (Math.abs(Date.UTC(y!, mo! - 1, d, h, mi, s) - Date.now()) > SKEW_MS) {
      throw new S3Error(
        403,
        'RequestTimeTooSkewed',
        'The difference between the request time and the current time is too large.',
      );
    }
    const payloadHash = req.headers['x-amz-content-sha256'];
    if (typeof payloadHash !== 'string') {
      throw new S3Error(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    }
    if (payloadHash.startsWith('STREAMING-')) {
      throw new S3Error(501, 'NotImplemented', 'aws-chunked payloads are not implemented here');
    }
    if (payloadHash !== 'UNSIGNED-PAYLOAD' && !/^[0-9a-f]{64}$/.test(payloadHash)) {
      throw new S3Error(
        400,
        'InvalidArgument',
        'x-amz-content-sha256 must be UNSIGNED-PAYLOAD or a SHA-256 hex digest',
      );
    }
    const names = signedHeaders.split(';');
    if (!names.includes('host') || !names.includes('x-amz-date')) {
      throw new S3Error(400, 'AuthorizationHeaderMalformed', 'host and x-amz-date must be signed');
    }
    const headers = names
      .map((n) => {
        const v = req.headers[n];
        const value = Array.isArray(v) ? v.join(',') : (v ?? '');
        return `${n}:${value.trim().replace(/\s+/g, ' ')}\n`;
      })
      .join('');
    const canonical = [req.method, rawPath, canonicalQuery(rawQuery), headers, signedHeaders, payloadHash].join('\n');
    const scope = `${date}/${region}/s3/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256hex(canonical)].join('\n');
    let k = hmac(`AWS4${this.secretAccessKey}`, date ?? '');
    for (const part of [region ?? '', 's3', 'aws4_request']) k = hmac(k, part);
    const expected = createHmac('sha256', k).update(toSign).digest();
    const given = Buffer.from(signature, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new S3Error(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      );
    }
    (req as IncomingMessage & { payloadHash?: string }).payloadHash = payloadHash;
  }

  /** Reads a body, checking its length and signed hash; emits `receive` per chunk for object bodies. */
  private async readBody(
    req: IncomingMessage,
    target?: { bucket: string; key: string; needLength: boolean },
  ): Promise<Buffer> {
    const declared = req.headers['content-length'];
    if (target?.needLength && declared === undefined) {
      throw new S3Error(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
    }
    const chunks: Buffer[] = [];
    const hash = createHash('sha256');
    let received = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      hash.update(chunk);
      received += chunk.length;
      if (target) this.emit('receive', { bucket: target.bucket, key: target.key, received });
    }
    if (declared !== undefined && Number(declared) !== received) {
      throw new S3Error(
        400,
        'IncompleteBody',
        'You did not provide the number of bytes specified by the Content-Length HTTP header.',
      );
    }
    const payloadHash = (req as IncomingMessage & { payloadHash?: string }).payloadHash;
    if (payloadHash && payloadHash !== 'UNSIGNED-PAYLOAD' && hash.digest('hex') !== payloadHash) {
      throw new S3Error(
        400,
        'XAmzContentSHA256Mismatch',
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
      );
    }
    return Buffer.concat(chunks, received);
  }

  private getObject(
    req: IncomingMessage,
    res: ServerResponse,
    op: string,
    objects: Map<string, StoredObject>,
    key: string,
  ): void {
    const obj = objects.get(key);
    if (!obj) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.');
    const headers: Record<string, string> = {
      ETag: obj.etag,
      'Last-Modified': obj.lastModified.toUTCString(),
      'Content-Type': obj.contentType,
      'Accept-Ranges': 'bytes',
    };
    for (const [k, v] of Object.entries(obj.metadata)) headers[`x-amz-meta-${k}`] = v;
    let status = 200;
    let data = obj.data;
    const range = req.headers.range;
    if (range && op === 'GetObject') {
      const r = parseRange(range, obj.data.length);
      if (!r) {
        throw new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable', {
          ActualObjectSize: String(obj.data.length),
        });
      }
      status = 206;
      data = obj.data.subarray(r.start, r.end + 1);
      headers['Content-Range'] = `bytes ${r.start}-${r.end}/${obj.data.length}`;
    }
    headers['Content-Length'] = String(data.length);
    this.send(req, res, op, status, data, headers, key);
  }

  private list(bucket: string, objects: Map<string, StoredObject>, q: URLSearchParams): string {
    const prefix = q.get('prefix') ?? '';
    const max = Math.min(Number(q.get('max-keys') ?? 1000), 1000);
    const after = q.get('continuation-token')
      ? Buffer.from(q.get('continuation-token') ?? '', 'base64url').toString()
      : (q.get('start-after') ?? '');
    const keys = [...objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
    const page = keys.slice(0, max);
    const truncated = keys.length > page.length;
    const contents = page
      .map((k) => {
        const o = objects.get(k) as StoredObject;
        return `<Contents>${tag('Key', k)}${tag('LastModified', o.lastModified.toISOString())}${tag('ETag', o.etag)}${tag('Size', o.data.length)}${tag('StorageClass', 'STANDARD')}</Contents>`;
      })
      .join('');
    const next = truncated ? tag('NextContinuationToken', Buffer.from(page.at(-1) ?? '').toString('base64url')) : '';
    return `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${tag('Name', bucket)}${tag('Prefix', prefix)}${tag('KeyCount', page.length)}${tag('MaxKeys', max)}${tag('IsTruncated', truncated)}${contents}${next}</ListBucketResult>`;
  }

  private uploadOf(q: URLSearchParams, bucket: string, key: string): MultipartUpload {
    const upload = this.uploads.get(q.get('uploadId') ?? '');
    if (!upload || upload.bucket !== bucket || upload.key !== key) {
      throw new S3Error(404, 'NoSuchUpload', 'The specified upload does not exist.', {
        UploadId: q.get('uploadId') ?? '',
      });
    }
    return upload;
  }

  private async complete(
    req: IncomingMessage,
    res: ServerResponse,
    objects: Map<string, StoredObject>,
    bucket: string,
    key: string,
    q: URLSearchParams,
  ): Promise<void> {
    const upload = this.uploadOf(q, bucket, key);
    const xml = (await this.readBody(req)).toString();
    const listed = [...xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map((p) => ({
      n: Number(/<PartNumber>(\d+)<\/PartNumber>/.exec(p[1] ?? '')?.[1]),
      etag: (/<ETag>([^<]*)<\/ETag>/.exec(p[1] ?? '')?.[1] ?? '').replace(/&quot;/g, '"'),
    }));
    if (listed.length === 0) throw new S3Error(400, 'MalformedXML', 'The XML you provided was not well-formed.');
    const datas: Buffer[] = [];
    listed.forEach((p, i) => {
      if (i > 0 && p.n <= (listed[i - 1]?.n ?? 0))
        throw new S3Error(400, 'InvalidPartOrder', 'The list of parts was not in ascending order.');
      const part = upload.parts.get(p.n);
      if (!part || part.etag !== p.etag)
        throw new S3Error(400, 'InvalidPart', 'One or more of the specified parts could not be found.');
      if (i < listed.length - 1 && part.data.length < MIN_PART_BYTES) {
        throw new S3Error(
          400,
          'EntityTooSmall',
          'Your proposed upload is smaller than the minimum allowed object size.',
        );
      }
      datas.push(part.data);
    });
    const md5s = Buffer.concat(datas.map((d) => createHash('md5').update(d).digest()));
    const etag = `"${md5hex(md5s)}-${datas.length}"`;
    objects.set(key, {
      data: Buffer.concat(datas),
      etag,
      contentType: upload.contentType,
      metadata: upload.metadata,
      lastModified: new Date(),
    });
    this.uploads.delete(q.get('uploadId') ?? '');
    const body = `<CompleteMultipartUploadResult>${tag('Location', `${this.endpoint}/${bucket}/${key}`)}${tag('Bucket', bucket)}${tag('Key', key)}${tag('ETag', etag)}</CompleteMultipartUploadResult>`;
    this.send(req, res, 'CompleteMultipartUpload', 200, body, {}, key);
  }
}

function operation(method: string, key: string, q: URLSearchParams): string {
  if (key === '') {
    if (method === 'PUT' && [...q.keys()].length === 0) return 'CreateBucket';
    if (method === 'HEAD') return 'HeadBucket';
    if (method === 'GET' && q.get('list-type') === '2') return 'ListObjectsV2';
    return 'unknown';
  }
  if (method === 'POST' && q.has('uploads')) return 'CreateMultipartUpload';
  if (method === 'POST' && q.has('uploadId')) return 'CompleteMultipartUpload';
  if (method === 'PUT' && q.has('uploadId') && q.has('partNumber')) return 'UploadPart';
  if (method === 'DELETE' && q.has('uploadId')) return 'AbortMultipartUpload';
  const plain = [...q.keys()].filter((k) => k !== 'x-id').length === 0;
  if (!plain) return 'unknown';
  if (method === 'PUT') return 'PutObject';
  if (method === 'GET') return 'GetObject';
  if (method === 'HEAD') return 'HeadObject';
  if (method === 'DELETE') return 'DeleteObject';
  return 'unknown';
}

/** SigV4's canonical query: each name and value decoded, re-encoded strictly, sorted by name then value. */
function canonicalQuery(raw: string): string {
  if (raw === '') return '';
  return raw
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const i = p.indexOf('=');
      const k = decodeURIComponent(i < 0 ? p : p.slice(0, i));
      const v = i < 0 ? '' : decodeURIComponent(p.slice(i + 1));
      return [escapeUri(k), escapeUri(v)] as const;
    })
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function metadataOf(req: IncomingMessage): Record<string, string> {
  const meta: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (k.startsWith('x-amz-meta-') && typeof v === 'string') meta[k.slice('x-amz-meta-'.length)] = v;
  }
  return meta;
}

function parseRange(header: string, size: number): { start: number; end: number } | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return null;
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return null;
  return { start, end };
}
