import { request } from 'node:http';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_PART_BYTES, S3TestServer } from './s3-server.js';

/** The local S3 server must answer the real SDK as S3 would, or the file-store tests prove nothing. */
describe('local S3 test server', () => {
  let s3: S3TestServer;
  const clients: S3Client[] = [];
  const client = (over: { secret?: string; keyId?: string; region?: string } = {}) => {
    const c = new S3Client({
      endpoint: s3.endpoint,
      region: over.region ?? 'us-east-1',
      forcePathStyle: true,
      credentials: {
        accessKeyId: over.keyId ?? s3.accessKeyId,
        secretAccessKey: over.secret ?? s3.secretAccessKey,
      },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    clients.push(c);
    return c;
  };
  const failure = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      const e = err as { name: string; $metadata?: { httpStatusCode?: number } };
      return { name: e.name, status: e.$metadata?.httpStatusCode };
    }
    throw new Error('expected the call to fail');
  };

  beforeAll(async () => {
    s3 = await S3TestServer.start({ buckets: ['b'] });
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await s3?.close();
  });

  it('stores, reads (whole and by range), lists and deletes objects for a correctly signed SDK', async () => {
    const c = client();
    const body = Buffer.from('hello, object storage');
    await c.send(
      new PutObjectCommand({
        Bucket: 'b',
        Key: 'dir/a b+c',
        Body: body,
        ContentType: 'image/png',
        Metadata: { sha256: 'x' },
      }),
    );
    const got = await c.send(new GetObjectCommand({ Bucket: 'b', Key: 'dir/a b+c' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
    expect(got.ContentType).toBe('image/png');
    expect(got.Metadata).toEqual({ sha256: 'x' });
    const part = await c.send(new GetObjectCommand({ Bucket: 'b', Key: 'dir/a b+c', Range: 'bytes=7-12' }));
    expect(await part.Body!.transformToString()).toBe('object');
    expect(part.ContentRange).toBe(`bytes 7-12/${body.length}`);
    const head = await c.send(new HeadObjectCommand({ Bucket: 'b', Key: 'dir/a b+c' }));
    expect(head.ContentLength).toBe(body.length);

    for (let i = 0; i < 5; i++) await c.send(new PutObjectCommand({ Bucket: 'b', Key: `p/${i}`, Body: `${i}` }));
    const first = await c.send(new ListObjectsV2Command({ Bucket: 'b', Prefix: 'p/', MaxKeys: 3 }));
    expect(first.Contents?.map((o) => o.Key)).toEqual(['p/0', 'p/1', 'p/2']);
    expect(first.IsTruncated).toBe(true);
    const rest = await c.send(
      new ListObjectsV2Command({ Bucket: 'b', Prefix: 'p/', ContinuationToken: first.NextContinuationToken }),
    );
    expect(rest.Contents?.map((o) => o.Key)).toEqual(['p/3', 'p/4']);
    expect(rest.IsTruncated).toBe(false);

    await c.send(new HeadBucketCommand({ Bucket: 'b' }));
    expect(await failure(c.send(new GetObjectCommand({ Bucket: 'b', Key: 'nope' })))).toEqual({
      name: 'NoSuchKey',
      status: 404,
    });
    expect(await failure(c.send(new HeadObjectCommand({ Bucket: 'b', Key: 'nope' })))).toEqual({
      name: 'NotFound',
      status: 404,
    });
    expect((await failure(c.send(new HeadBucketCommand({ Bucket: 'missing' })))).status).toBe(404);
  });

  it('refuses a wrong secret, an unknown key id, a wrong region and an unsigned request, with S3 codes', async () => {
    const put = (c: S3Client) => c.send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: 'x' }));
    expect(await failure(put(client({ secret: 'not-the-secret' })))).toEqual({
      name: 'SignatureDoesNotMatch',
      status: 403,
    });
    expect(await failure(put(client({ keyId: 'AKIAUNKNOWN' })))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
    expect(await failure(put(client({ region: 'eu-west-1' })))).toEqual({
      name: 'AuthorizationHeaderMalformed',
      status: 400,
    });
    expect(s3.objects('b').has('k')).toBe(false);

    const anonymous = await raw('PUT', '/b/k', { 'content-length': '1' }, 'x');
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toContain('<Code>AccessDenied</Code>');
  });

  it('checks a signed payload hash against the body, and wants a Content-Length on PUT', async () => {
    // A request signed by the SDK, then replayed with other bytes of the same length.
    let signed: Record<string, string> = {};
    let path = '';
    const c = client();
    c.middlewareStack.add(
      (next) => async (args) => {
        const r = args.request as { headers: Record<string, string>; path: string; query: Record<string, string> };
        signed = { ...r.headers };
        path = `${r.path}?${new URLSearchParams(r.query)}`;
        return next(args);
      },
      { step: 'deserialize', name: 'capture' },
    );
    await c.send(new PutObjectCommand({ Bucket: 'b', Key: 'signed', Body: 'original' }));
    expect(signed['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
    const tampered = await raw('PUT', path, signed, 'tampered');
    expect(tampered.status).toBe(400);
    expect(tampered.body).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    expect(s3.objects('b').get('signed')?.data.toString()).toBe('original');

    // Signed without a length (as a chunked request): S3 wants the length of a PUT anyway.
    const unsized = client();
    const dropLength: Parameters<typeof unsized.middlewareStack.add>[0] = (next) => async (args) => {
      const r = args.request as { headers: Record<string, string> };
      delete r.headers['content-length'];
      r.headers['transfer-encoding'] = 'chunked';
      return next(args);
    };
    unsized.middlewareStack.addRelativeTo(dropLength, {
      relation: 'before',
      toMiddleware: 'httpSigningMiddleware',
      name: 'unsized',
    });
    expect(await failure(unsized.send(new PutObjectCommand({ Bucket: 'b', Key: 'unsized', Body: 'x' })))).toEqual({
      name: 'MissingContentLength',
      status: 411,
    });
    expect(s3.objects('b').has('unsized')).toBe(false);
  });

  it('multipart: parts under 5 MiB (but the last) are EntityTooSmall; a valid upload assembles in order', async () => {
    const c = client();
    const start = async () =>
      (await c.send(new CreateMultipartUploadCommand({ Bucket: 'b', Key: 'mp' }))).UploadId as string;
    const part = async (id: string, n: number, body: Buffer) =>
      (await c.send(new UploadPartCommand({ Bucket: 'b', Key: 'mp', UploadId: id, PartNumber: n, Body: body }))).ETag;

    const small = await start();
    const parts = [
      { PartNumber: 1, ETag: await part(small, 1, Buffer.alloc(10, 1)) },
      { PartNumber: 2, ETag: await part(small, 2, Buffer.alloc(10, 2)) },
    ];
    const tooSmall = c.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'b',
        Key: 'mp',
        UploadId: small,
        MultipartUpload: { Parts: parts },
      }),
    );
    expect(await failure(tooSmall)).toEqual({ name: 'EntityTooSmall', status: 400 });

    const ok = await start();
    const a = Buffer.alloc(MIN_PART_BYTES, 7);
    const b = Buffer.from('tail');
    const done = await c.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'b',
        Key: 'mp',
        UploadId: ok,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: await part(ok, 1, a) },
            { PartNumber: 2, ETag: await part(ok, 2, b) },
          ],
        },
      }),
    );
    expect(done.ETag).toMatch(/-2"$/);
    expect(
      s3
        .objects('b')
        .get('mp')
        ?.data.equals(Buffer.concat([a, b])),
    ).toBe(true);
  });

  /** A raw HTTP request to the server, for what the SDK would never send. */
  function raw(method: string, path: string, headers: Record<string, string>, body: string) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${s3.endpoint}${path}`, { method, headers }, (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }
});
