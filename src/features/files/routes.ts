import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { scopeOf } from '../../shared/auth.js';
import { ApiError } from '../../shared/errors.js';
import { sha256Hex } from '../../shared/ids.js';
import { errorResponses } from '../../shared/openapi.js';
import { requireMover } from '../lifecycle/access.js';
import { ContentQuery, FILE_TYPES, FileIdParams, FileObject, MAX_FILE_BYTES, UploadQuery } from './schemas.js';
import * as service from './service.js';

const tags = ['Files'];

/** Authenticated upload and read. Register as its own plugin: the image body parser is scoped to it. */
export async function filesRoutes(app: FastifyInstance, ctx: service.FilesContext): Promise<void> {
  app.addContentTypeParser([...FILE_TYPES], { parseAs: 'buffer', bodyLimit: MAX_FILE_BYTES }, (req, body, done) => {
    // The idempotency layer fingerprints rawBody: a digest stands in for 10 MiB of bytes.
    req.rawBody = sha256Hex(body as Buffer);
    done(null, body);
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/files',
    {
      bodyLimit: MAX_FILE_BYTES,
      schema: {
        tags,
        summary: 'Upload a proof-of-delivery image',
        description:
          'The raw body is the image: `image/png`, `image/jpeg` or `image/webp`, at most 10 MiB. The bytes must match the Content-Type (checked by content, 422 otherwise). Operator keys and test keys only.',
        consumes: [...FILE_TYPES],
        querystring: UploadQuery,
        response: { 201: FileObject, ...errorResponses(401, 403, 413, 415, 422) },
      },
    },
    async (req, reply) => {
      const scope = requireMover(req);
      const declared = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (!Buffer.isBuffer(req.body)) {
        throw new ApiError('unsupported_media_type', 'Send the image bytes as image/png, image/jpeg or image/webp.');
      }
      reply.code(201);
      return service.upload(ctx, scope, req.query.purpose, declared, req.body);
    },
  );

  r.get(
    '/files/:id',
    {
      schema: {
        tags,
        summary: 'Read a file, with a fresh signed link',
        params: FileIdParams,
        response: { 200: FileObject, ...errorResponses(401, 404) },
      },
    },
    async (req) => service.getFile(ctx, scopeOf(req), req.params.id),
  );
}

/** The keyless half: the signed link itself is the credential. */
export async function fileContentRoutes(app: FastifyInstance, ctx: service.FilesContext): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/files/:id/content',
    {
      schema: {
        tags,
        summary: 'Download a file through its signed link (no API key)',
        security: [],
        params: FileIdParams,
        querystring: ContentQuery,
        produces: [...FILE_TYPES],
        response: {
          200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The image bytes' }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (req, reply) => {
      const { mime, bytes } = await service.content(ctx, req.params.id, req.query.expires, req.query.signature);
      return reply
        .type(mime)
        .header('Cache-Control', 'private, max-age=300')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Disposition', 'inline')
        .send(bytes);
    },
  );
}
