// Reports: the delivery KPIs of GET /v1/reports/summary and its export. Split by topic from
// schemas.ts (the cash schemas), whose Day field builder these share.
import { type Static, Type } from 'typebox';
import { AccountFilter, Nullable } from '../../shared/params.js';
import { Day } from './schemas.js';

const reportQueryFields = {
  from: Type.Optional(Day('First local day (each order\u2019s due day); default: 29 days before to')),
  to: Type.Optional(Day('Last local day, inclusive; default: today')),
  account: Type.Optional(AccountFilter('The carrier: one merchant\u2019s orders')),
  courier: Type.Optional(Type.String({ maxLength: 100, description: 'One courier' })),
  group_by: Type.Optional(Type.Enum(['day', 'courier', 'district', 'merchant'])),
};
export const ReportQuery = Type.Object(reportQueryFields, { additionalProperties: false });
export type ReportQuery = Static<typeof ReportQuery>;
export const ReportExportQuery = Type.Object(
  { ...reportQueryFields, format: Type.Optional(Type.Enum(['csv', 'xlsx'], { default: 'csv' })) },
  { additionalProperties: false },
);

const Rate = Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'A fraction of delivered; null with none' }));
const Stars = Type.Integer({ minimum: 0 });
const figureFields = {
  orders: Type.Integer({ description: 'Orders due in the period' }),
  delivered: Type.Integer({ description: 'Delivered or partially delivered' }),
  failed: Type.Integer({ description: 'Failed or returned (as they stand now)' }),
  cancelled: Type.Integer(),
  on_time: Type.Integer({ description: 'Delivered inside their window (without one: by the end of the due day)' }),
  on_time_rate: Rate,
  first_attempt: Type.Integer({ description: 'Delivered at the first attempt' }),
  first_attempt_rate: Rate,
  delivery_minutes: Type.Object(
    { p50: Nullable(Type.Number()), p90: Nullable(Type.Number()) },
    { description: 'Created \u2192 delivered, in minutes, exact to 5 minutes (upper bound of the bucket)' },
  ),
  km: Nullable(Type.Number({ description: 'Not measured yet: null' })),
  stops_per_hour: Nullable(Type.Number({ description: 'Not measured yet: null' })),
  ratings: Type.Object(
    {
      count: Type.Integer({ description: 'Orders the customer rated (tracking page), of those due in the period' }),
      average: Nullable(
        Type.Number({ minimum: 1, maximum: 5, description: 'Mean rating, to two decimals (half up); null with none' }),
      ),
      distribution: Type.Object(
        { '1': Stars, '2': Stars, '3': Stars, '4': Stars, '5': Stars },
        { description: 'How many rated orders gave each number of stars' },
      ),
    },
    { description: 'Customers\u2019 ratings of their deliveries (1\u20135 stars, given once after delivery)' },
  ),
  links: Type.Object(
    {
      orders: Type.String(),
      delivered: Type.String(),
      failed: Type.String(),
      cancelled: Type.String(),
      on_time: Type.String(),
      first_attempt: Type.String(),
      rated: Type.String({ description: 'The rated orders; add rating=1..5 for one number of stars' }),
    },
    { description: 'GET /v1/orders queries that list the orders behind each figure' },
  ),
};
export const ReportFigures = Type.Object(figureFields, { $id: 'ReportFigures' });
export type ReportFigures = Static<typeof ReportFigures>;

export const ReportSummary = Type.Object(
  {
    object: Type.Literal('report_summary'),
    livemode: Type.Boolean(),
    from: Type.String(),
    to: Type.String(),
    timezone: Type.String({
      description: 'The zone of "today" (the caller\u2019s); each order is counted on its own due day',
    }),
    group_by: Nullable(Type.String()),
    totals: ReportFigures,
    groups: Type.Array(
      Type.Object({
        key: Nullable(Type.String({ description: 'The day, courier id, district or account id' })),
        label: Type.String(),
        ...figureFields,
      }),
    ),
  },
  { $id: 'ReportSummary' },
);
export type ReportSummary = Static<typeof ReportSummary>;
