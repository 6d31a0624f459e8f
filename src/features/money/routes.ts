import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { requireCarrier, withAccountNamed } from '../../shared/access.js';
import { principalOf, scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { EmptyBody, IdParams } from '../../shared/params.js';
import { reportCsv, reportXlsx } from '../../shared/spreadsheet.js';
import * as cash from './cash.js';
import { endOfDay, endOfDayTable } from './cash-end-of-day.js';
import { recordHandover, voidHandover } from './cash-handovers.js';
import { ReportExportQuery, ReportQuery, ReportSummary } from './report-schemas.js';
import * as reports from './reports.js';
import {
  CashException,
  CashExceptionList,
  CashHandover,
  CourierCash,
  DaysQuery,
  EndOfDay,
  EndOfDayExportQuery,
  EndOfDayQuery,
  ExceptionsQuery,
  HandoverBody,
  ResolveBody,
  VoidHandoverBody,
} from './schemas.js';
import {
  ExportQuery,
  Settlement,
  SettlementCreate,
  SettlementList,
  SettlementListQuery,
} from './settlement-schemas.js';
import * as settlements from './settlements.js';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const Binary = (description: string) => Type.Unsafe<Buffer | string>({ type: 'string', format: 'binary', description });

/** Sends a table as CSV or XLSX, named after what it holds. */
export async function sendTable(reply: FastifyReply, name: string, format: 'csv' | 'xlsx', body: string | Buffer) {
  return reply
    .type(format === 'csv' ? 'text/csv; charset=utf-8' : XLSX_TYPE)
    .header('Content-Disposition', `attachment; filename="${name}.${format}"`)
    .send(body);
}

/** Courier cash and merchant settlements (DESIGN §17, docs/money.md). */
export function moneyRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tagsCash = ['Cash'];
  const tagsSettlements = ['Settlements'];

  r.get(
    '/couriers/:id/cash',
    {
      schema: {
        tags: tagsCash,
        operationId: 'getCourierCash',
        summary: 'A courier\u2019s cash: balances now and each day\u2019s lines (the carrier, or the courier itself)',
        params: IdParams,
        querystring: DaysQuery,
        response: { 200: CourierCash, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => cash.courierCash(ctx, requireCarrier(req, { courier: true }), req.params.id, req.query),
  );

  r.post(
    '/couriers/:id/cash_handovers',
    {
      schema: {
        tags: tagsCash,
        operationId: 'createCashHandover',
        summary: 'Record cash a courier handed over (the carrier)',
        params: IdParams,
        body: HandoverBody,
        response: { 201: CashHandover, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const scope = requireCarrier(req);
      reply.code(201);
      return recordHandover(ctx, scope, principalOf(req), req.params.id, req.body);
    },
  );

  r.post(
    '/cash_handovers/:id/void',
    {
      schema: {
        tags: tagsCash,
        operationId: 'voidCashHandover',
        summary:
          'Void a handover recorded wrong: kept and listed, it counts in no balance, line or exception (the carrier; a voided one is 409)',
        params: IdParams,
        body: VoidHandoverBody,
        response: { 200: CashHandover, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (req) => voidHandover(ctx, requireCarrier(req), principalOf(req), req.params.id, req.body.reason),
  );

  r.get(
    '/cash/end_of_day',
    {
      schema: {
        tags: tagsCash,
        operationId: 'getCashEndOfDay',
        summary: 'Every courier\u2019s expected, collected and handed-over cash of one day (the carrier)',
        querystring: EndOfDayQuery,
        response: { 200: EndOfDay, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => endOfDay(ctx, requireCarrier(req), req.query),
  );

  r.get(
    '/cash/end_of_day/export',
    {
      schema: {
        tags: tagsCash,
        operationId: 'exportCashEndOfDay',
        summary: 'The end of day\u2019s lines as CSV or XLSX, one row per courier and currency (the carrier)',
        querystring: EndOfDayExportQuery,
        produces: ['text/csv', XLSX_TYPE],
        response: { 200: Binary('CSV (UTF-8 with BOM) or an .xlsx workbook'), ...errorResponses(401, 403, 422) },
      },
    },
    async (req, reply) => {
      const { format = 'csv', ...q } = req.query;
      const eod = await endOfDay(ctx, requireCarrier(req), q);
      const rows = endOfDayTable(eod);
      return sendTable(
        reply,
        `ruta-cash-${eod.day}`,
        format,
        format === 'csv' ? reportCsv(rows) : await reportXlsx(rows),
      );
    },
  );

  r.get(
    '/cash/exceptions',
    {
      schema: {
        tags: tagsCash,
        operationId: 'listCashExceptions',
        summary: 'Short and over days of couriers, newest first (the carrier)',
        querystring: ExceptionsQuery,
        response: { 200: CashExceptionList, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => cash.listExceptions(ctx, requireCarrier(req), req.query),
  );

  r.post(
    '/cash/exceptions/:id/resolve',
    {
      schema: {
        tags: tagsCash,
        operationId: 'resolveCashException',
        summary: 'Explain a short or over day with a note (the carrier)',
        params: IdParams,
        body: ResolveBody,
        response: { 200: CashException, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (req) => cash.resolveException(ctx, requireCarrier(req), principalOf(req), req.params.id, req.body.note),
  );

  r.post(
    '/settlements',
    {
      schema: {
        tags: tagsSettlements,
        operationId: 'createSettlement',
        summary: 'Draft a merchant\u2019s settlement from a period\u2019s delivered orders (the carrier)',
        body: SettlementCreate,
        response: { 201: Settlement, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (req, reply) => {
      const scope = requireCarrier(req);
      reply.code(201);
      return settlements.createDraft(ctx, scope, req.body);
    },
  );

  r.get(
    '/settlements',
    {
      schema: {
        tags: tagsSettlements,
        operationId: 'listSettlements',
        summary: 'Settlements, newest first (a merchant: its own)',
        querystring: SettlementListQuery,
        response: { 200: SettlementList, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => settlements.listSettlements(ctx, scopeOf(req, { courier: false }), withAccountNamed(req, req.query)),
  );

  r.get(
    '/settlements/:id',
    {
      schema: {
        tags: tagsSettlements,
        operationId: 'getSettlement',
        summary: 'A settlement with its lines (a merchant: its own)',
        params: IdParams,
        response: { 200: Settlement, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => settlements.getSettlement(ctx, scopeOf(req, { courier: false }), req.params.id),
  );

  r.get(
    '/settlements/:id/export',
    {
      schema: {
        tags: tagsSettlements,
        operationId: 'exportSettlement',
        summary: 'A settlement\u2019s lines and totals as CSV or XLSX (formula-safe)',
        params: IdParams,
        querystring: ExportQuery,
        produces: ['text/csv', XLSX_TYPE],
        response: { 200: Binary('CSV (UTF-8 with BOM) or an .xlsx workbook'), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const format = req.query.format ?? 'csv';
      const body = await settlements.exportSettlement(ctx, scopeOf(req, { courier: false }), req.params.id, format);
      return sendTable(reply, `ruta-${req.params.id}`, format, body);
    },
  );

  for (const [action, op, summary] of [
    [
      'issue',
      'issueSettlement',
      'Issue a draft: it is final, and `settlement.issued` goes to the merchant (the carrier)',
    ],
    ['pay', 'paySettlement', 'Mark an issued settlement paid (the carrier)'],
  ] as const) {
    r.post(
      `/settlements/:id/${action}`,
      {
        schema: {
          tags: tagsSettlements,
          operationId: op,
          summary,
          params: IdParams,
          body: EmptyBody,
          response: { 200: Settlement, ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (req) => {
        const scope = requireCarrier(req);
        return action === 'issue'
          ? settlements.issue(ctx, scope, req.params.id)
          : settlements.markPaid(ctx, scope, req.params.id);
      },
    );
  }

  r.delete(
    '/settlements/:id',
    {
      schema: {
        tags: tagsSettlements,
        operationId: 'deleteSettlement',
        summary: 'Delete a draft: its orders can be settled again (the carrier)',
        params: IdParams,
        response: {
          200: Type.Object(
            { id: Type.String(), object: Type.Literal('settlement'), deleted: Type.Literal(true) },
            { $id: 'SettlementDeleted' },
          ),
          ...errorResponses(401, 403, 404, 409),
        },
      },
    },
    async (req) => settlements.deleteDraft(ctx, requireCarrier(req), req.params.id),
  );

  r.get(
    '/reports/summary',
    {
      schema: {
        tags: ['Reports'],
        operationId: 'getReportSummary',
        summary: 'Delivery KPIs of a period, by day, courier, district or merchant (a merchant: its own orders)',
        querystring: ReportQuery,
        response: { 200: ReportSummary, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => reports.summary(ctx, scopeOf(req, { courier: false }), withAccountNamed(req, req.query)),
  );

  r.get(
    '/reports/summary/export',
    {
      schema: {
        tags: ['Reports'],
        operationId: 'exportReportSummary',
        summary: 'The same summary as CSV or XLSX: one row per group, then the total',
        querystring: ReportExportQuery,
        produces: ['text/csv', XLSX_TYPE],
        response: { 200: Binary('CSV (UTF-8 with BOM) or an .xlsx workbook'), ...errorResponses(401, 403, 422) },
      },
    },
    async (req, reply) => {
      const { format = 'csv', ...q } = req.query;
      const scope = scopeOf(req, { courier: false });
      const rows = reports.summaryTable(await reports.summary(ctx, scope, withAccountNamed(req, q)));
      return sendTable(reply, 'ruta-report', format, format === 'csv' ? reportCsv(rows) : await reportXlsx(rows));
    },
  );
}
