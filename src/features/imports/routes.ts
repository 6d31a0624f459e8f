import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams } from '../../shared/params.js';
import { importOwner, notCourier } from './owner.js';
import { XLSX_TYPE } from './parse.js';
import {
  AccountQuery,
  CreateQuery,
  IMPORT_TYPES,
  type ImportType,
  ListQuery,
  MAX_IMPORT_BYTES,
  OrderImport,
  OrderImportList,
} from './schemas.js';
import * as service from './service.js';
import { readImportBody } from './upload-body.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The uploaded spreadsheet. Kept off `req.body`, so hooks that walk bodies never walk 10 MiB of bytes. */
    importFile?: Buffer;
  }
}

const tags = ['Order imports'];
const Binary = (description: string) => Type.Unsafe<Buffer | string>({ type: 'string', format: 'binary', description });

/** Bulk import. Register as its own plugin: the spreadsheet body parser is scoped to it. */
export async function importsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.addContentTypeParser([...IMPORT_TYPES], (req, payload, done) =>
    readImportBody(req, payload, MAX_IMPORT_BYTES, (err, body) => {
      if (body) {
        req.importFile = body.bytes;
        // The idempotency layer fingerprints rawBody: a digest stands in for the file.
        req.rawBody = body.sha256;
      }
      done(err, undefined);
    }),
  );
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/order_imports',
    {
      bodyLimit: MAX_IMPORT_BYTES,
      onRequest: notCourier,
      schema: {
        tags,
        operationId: 'createOrderImport',
        summary: 'Import orders from a CSV or XLSX file',
        description:
          'The raw body is the file: `text/csv` (UTF-8, `,` or `;`) or an `.xlsx` workbook (first sheet), at most 10 MiB and 10 000 rows. Answers 202 at once; the rows are imported in the background. See docs/imports.md for the columns.',
        consumes: [...IMPORT_TYPES],
        querystring: CreateQuery,
        response: { 202: OrderImport, ...errorResponses(401, 403, 404, 413, 415, 422) },
      },
    },
    async (req, reply) => {
      const owner = await importOwner(ctx, req, req.query.account);
      const declared = (req.headers['content-type']?.split(';', 1)[0] ?? '').trim().toLowerCase();
      if (!req.importFile || !IMPORT_TYPES.includes(declared as ImportType)) {
        throw new ApiError('unsupported_media_type', `Send the file as text/csv or ${XLSX_TYPE}.`);
      }
      reply.code(202);
      return service.createImport(ctx, owner, {
        type: declared as ImportType,
        bytes: req.importFile,
        mode: req.query.mode,
        duplicates: req.query.duplicates,
        dateFormat: req.query.date_format,
      });
    },
  );

  r.get(
    '/order_imports',
    {
      onRequest: notCourier,
      schema: {
        tags,
        operationId: 'listOrderImports',
        summary: 'List order imports, newest first',
        querystring: ListQuery,
        response: { 200: OrderImportList, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => {
      const { account, ...page } = req.query;
      return service.listImports(ctx, await importOwner(ctx, req, account), page);
    },
  );

  // Before /order_imports/:id in meaning; Fastify prefers static segments, so order does not matter.
  r.get(
    '/order_imports/template.csv',
    {
      onRequest: notCourier,
      schema: {
        tags,
        operationId: 'getOrderImportTemplateCsv',
        summary: 'The CSV template: every column, one example order with two items',
        produces: ['text/csv'],
        response: { 200: Binary('CSV, UTF-8 with BOM'), ...errorResponses(401, 403) },
      },
    },
    async (_req, reply) =>
      reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', 'attachment; filename="ruta-orders-template.csv"')
        .send(service.templateCsv()),
  );

  r.get(
    '/order_imports/template.xlsx',
    {
      onRequest: notCourier,
      schema: {
        tags,
        operationId: 'getOrderImportTemplateXlsx',
        summary: 'The Excel template: every column, one example order with two items',
        produces: [XLSX_TYPE],
        response: { 200: Binary('An .xlsx workbook'), ...errorResponses(401, 403) },
      },
    },
    async (_req, reply) =>
      reply
        .type(XLSX_TYPE)
        .header('Content-Disposition', 'attachment; filename="ruta-orders-template.xlsx"')
        .send(await service.templateXlsx()),
  );

  r.get(
    '/order_imports/:id',
    {
      onRequest: notCourier,
      schema: {
        tags,
        operationId: 'getOrderImport',
        summary: 'Read an order import: status, progress, errors',
        params: IdParams,
        querystring: AccountQuery,
        response: { 200: OrderImport, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => service.getImport(ctx, await importOwner(ctx, req, req.query.account), req.params.id),
  );

  r.get(
    '/order_imports/:id/failed_rows.csv',
    {
      onRequest: notCourier,
      schema: {
        tags,
        operationId: 'getOrderImportFailedRows',
        summary: 'The rejected rows as uploaded, with an error column',
        params: IdParams,
        querystring: AccountQuery,
        produces: ['text/csv'],
        response: { 200: Binary('CSV, UTF-8 with BOM'), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const csv = await service.failedRowsCsv(ctx, await importOwner(ctx, req, req.query.account), req.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${req.params.id}-failed-rows.csv"`)
        .send(csv);
    },
  );
}
