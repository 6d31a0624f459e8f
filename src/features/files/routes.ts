import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requireMover } from '../../shared/access.js';
import { scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams } from '../../shared/params.js';
import { ContentQuery, FILE_TYPES, FileObject, MAX_FILE_BYTES, UploadQuery } from './schemas.js';
import * as service from './service.js';
import { fileStore } from './store.js';
import { receiveUpload, type StoredUpload } from './upload-body.js';

const tags = ['Files'];

const isStoredUpload = (body: unknown): body is StoredUpload =>
  typeof body === 'object' && body !== null && typeof (body as StoredUpload).committed === 'boolean';

/** Authenticated upload and read. Register as its own plugin: the image body parser is scoped to it. */
export async function filesRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.addContentTypeParser([...FILE_TYPES], (req, payload, done) => {
    receiveUpload(ctx, req, payload, MAX_FILE_BYTES).then(
      (body) => {
        // The idempotency layer fingerprints rawBody: the digest stands in for 10 MiB of bytes.
        req.rawBody = body.sha256;
        done(null, body);
      },
      (err: Error) => done(err),
    );
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/files',
    {
      bodyLimit: MAX_FILE_BYTES,
      // Who may upload is known from the headers: a key that may not upload gets its 403 before a
      // byte of a 10 MiB body is read (route hooks run after the scope's authentication).
      onRequest: async (req) => {
        requireMover(req, { courier: true });
      },
      // The bytes reached the store while the body was parsed; unless the row was written (a 422 on
      // the query, an idempotent replay, a failed insert), they are removed once the answer is out.
      onResponse: async (req) => {
        if (isStoredUpload(req.body) && !req.body.committed) {
          const id = req.body.id;
          await fileStore(ctx)
            .delete(id)
            .catch((err) => req.log.warn({ err, file: id }, 'could not remove an unrecorded upload'));
        }
      },
      schema: {
        tags,
        operationId: 'uploadFile',
        summary: 'Upload a proof-of-delivery image',
        description:
          'The raw body is the image: `image/png`, `image/jpeg` or `image/webp`, at most 10 MiB. The bytes must match the Content-Type (checked by content, 422 otherwise). Operator keys, test keys, dispatchers and admins, and courier sessions.',
        consumes: [...FILE_TYPES],
        querystring: UploadQuery,
        response: { 201: FileObject, ...errorResponses(401, 403, 413, 415, 422, 503) },
      },
    },
    async (req, reply) => {
      const scope = requireMover(req, { courier: true });
      if (!isStoredUpload(req.body)) {
        throw new ApiError('unsupported_media_type', 'Send the image bytes as image/png, image/jpeg or image/webp.');
      }
      reply.code(201);
      return service.upload(ctx, scope, req.query.purpose, req.body);
    },
  );

  r.get(
    '/files/:id',
    {
      schema: {
        tags,
        operationId: 'getFile',
        summary: 'Read a file, with a fresh signed link',
        params: IdParams,
        response: { 200: FileObject, ...errorResponses(401, 404) },
      },
    },
    async (req) => service.getFile(ctx, scopeOf(req, { courier: false }), req.params.id),
  );
}

/** The keyless half: the signed link itself is the credential. */
export async function fileContentRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/files/:id/content',
    {
      schema: {
        tags,
        operationId: 'getFileContent',
        summary: 'Download a file through its signed link (no API key)',
        security: [],
        params: IdParams,
        querystring: ContentQuery,
        produces: [...FILE_TYPES],
        response: {
          200: Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'The image bytes' }),
          ...errorResponses(403, 404, 503),
        },
      },
    },
    async (req, reply) => {
      const { mime, size, body } = await service.content(ctx, req.params.id, req.query.expires, req.query.signature);
      // Streamed from the store as it is read; Fastify destroys the stream if the client goes away.
      return reply
        .type(mime)
        .header('Content-Length', size)
        .header('Cache-Control', 'private, max-age=300')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Disposition', 'inline')
        .send(body);
    },
  );
}
