import { type Static, Type } from 'typebox';
import { SETTLEMENT_STATUSES } from '../../shared/db/tables/settlements.js';
import { AccountFilter, Currency, Nullable } from '../../shared/params.js';

const Day = (description: string) => Type.String({ format: 'date', description });
const Amount = (description: string) => Type.Number({ description: `${description} (major units, 2 decimals)` });
const Ref = Type.Object({ id: Type.String(), name: Type.String() });

const cashTo = Day('Last local day, inclusive, today or earlier (a day after today is 422); default: today');
export const DaysQuery = Type.Object(
  {
    from: Type.Optional(Day('First local day (YYYY-MM-DD), in the carrier\u2019s zone; default: 13 days before to')),
    to: Type.Optional(cashTo),
  },
  { additionalProperties: false },
);

export const HandoverBody = Type.Object(
  {
    amount: Type.Number({ exclusiveMinimum: 0, maximum: 99_999_999.99, description: 'Cash handed over, major units' }),
    currency: Currency(),
    received_by: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Who received it: a name, a safe, a deposit',
    }),
    notes: Type.Optional(Type.String({ maxLength: 500 })),
    day: Type.Optional(
      Day(
        'The local day (YYYY-MM-DD, the carrier\u2019s zone) the cash counts for, today or earlier (a day after today is 422); default: today. A correction of an earlier day\u2019s handover names that day',
      ),
    ),
  },
  { additionalProperties: false, $id: 'CashHandoverParams' },
);
export type HandoverBody = Static<typeof HandoverBody>;

export const CashHandover = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('cash_handover'),
    courier: Type.String(),
    amount: Amount('Cash handed over'),
    currency: Type.String(),
    received_by: Type.String(),
    notes: Nullable(Type.String()),
    day: Type.String({
      description: 'The local day it counts for: the day it was recorded for, else the day it was recorded',
    }),
    created_at: Type.String({ format: 'date-time' }),
    voided_at: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'When it was voided (recorded wrong): it then counts in no balance, line or exception; null while it counts',
      }),
    ),
    void_reason: Nullable(Type.String({ description: 'Why it was voided; null while it counts' })),
  },
  { $id: 'CashHandover' },
);
export type CashHandover = Static<typeof CashHandover>;

export const VoidHandoverBody = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'Why it is voided, e.g. "typed 190 for 19"; kept with the handover',
    }),
  },
  { additionalProperties: false, $id: 'CashHandoverVoidParams' },
);

const lineFields = {
  day: Type.String(),
  currency: Type.String(),
  deliveries: Type.Integer({ description: 'Deliveries paid in cash that day' }),
  expected: Amount('Cash on delivery those deliveries asked for'),
  collected: Amount('Cash the courier recorded collecting'),
  handed_over: Amount('Cash handed over that day'),
  difference: Amount('handed_over \u2212 expected: negative is short, positive is over'),
  balance: Amount('Cash the courier held at the end of the day'),
  status: Type.Enum(['balanced', 'short', 'over']),
};
export const CashDayLine = Type.Object(lineFields, { $id: 'CashDayLine' });
export type CashDayLine = Static<typeof CashDayLine>;

export const CourierCash = Type.Object(
  {
    object: Type.Literal('courier_cash'),
    courier: Ref,
    timezone: Type.String({ description: 'The zone days are read in (the carrier\u2019s)' }),
    from: Type.String(),
    to: Type.String(),
    balances: Type.Array(
      Type.Object({
        currency: Type.String(),
        collected: Amount('Everything collected in cash'),
        handed_over: Amount('Everything handed over'),
        balance: Amount('What the courier holds now'),
      }),
    ),
    days: Type.Array(CashDayLine, { description: 'Each day of the span with cash, newest first' }),
    handovers: Type.Array(CashHandover, { description: 'The span\u2019s handovers, newest first' }),
  },
  { $id: 'CourierCash' },
);
export type CourierCash = Static<typeof CourierCash>;

const eodDay = Day('The local day, today or earlier (a day after today is 422); default: today');
export const EndOfDayQuery = Type.Object({ day: Type.Optional(eodDay) }, { additionalProperties: false });
export const EndOfDayExportQuery = Type.Object(
  { day: Type.Optional(eodDay), format: Type.Optional(Type.Enum(['csv', 'xlsx'], { default: 'csv' })) },
  { additionalProperties: false },
);
export const EndOfDay = Type.Object(
  {
    object: Type.Literal('cash_end_of_day'),
    day: Type.String(),
    timezone: Type.String(),
    lines: Type.Array(
      Type.Object({
        courier: Ref,
        exception: Nullable(Type.String({ description: 'The cash exception of a short or over line' })),
        ...lineFields,
      }),
    ),
    handovers: Type.Array(
      Type.Object({ ...CashHandover.properties, courier_name: Type.String() }, { $id: 'CashEndOfDayHandover' }),
      { description: 'The day\u2019s handovers, newest first, the voided ones too (they count in no line)' },
    ),
  },
  { $id: 'CashEndOfDay' },
);
export type EndOfDay = Static<typeof EndOfDay>;

export const ExceptionsQuery = Type.Object(
  {
    from: Type.Optional(Day('First local day; default: 30 days before to')),
    to: Type.Optional(cashTo),
    status: Type.Optional(Type.Enum(['open', 'resolved'])),
  },
  { additionalProperties: false },
);
export const CashException = Type.Object(
  {
    id: Type.String({ description: 'cex_{courier}_{day}_{currency}' }),
    object: Type.Literal('cash_exception'),
    courier: Ref,
    kind: Type.Enum(['short', 'over']),
    resolved: Type.Boolean({ description: 'A note explains this very difference' }),
    resolution: Nullable(
      Type.Object({
        note: Type.String(),
        difference: Type.Number(),
        resolved_at: Type.String({ format: 'date-time' }),
      }),
    ),
    ...lineFields,
  },
  { $id: 'CashException' },
);
export type CashException = Static<typeof CashException>;
export const CashExceptionList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(CashException) },
  { $id: 'CashExceptionList' },
);
export const ResolveBody = Type.Object(
  { note: Type.String({ minLength: 1, maxLength: 500 }) },
  { additionalProperties: false, $id: 'CashExceptionResolveParams' },
);

// Settlements

export const SettlementCreate = Type.Object(
  {
    account_id: Type.String({ minLength: 1, maxLength: 100 }),
    period_start: Day('First local day of the period, in the account\u2019s zone'),
    period_end: Day('Last local day of the period, inclusive'),
  },
  { additionalProperties: false, $id: 'SettlementCreateParams' },
);
export type SettlementCreate = Static<typeof SettlementCreate>;

export const SettlementLine = Type.Object(
  {
    kind: Type.Enum(['order', 'adjustment'], {
      description: 'order: settled for the first time; adjustment: an order changed since an issued settlement',
    }),
    order: Type.String(),
    tracking_code: Type.String(),
    external_order_id: Nullable(Type.String()),
    order_status: Type.String(),
    delivered_at: Nullable(Type.String({ format: 'date-time' })),
    currency: Type.String(),
    cod_collected: Amount('Cash on delivery collected'),
    shipping_cost: Amount('Shipping cost'),
    net_payable: Amount('cod_collected \u2212 shipping_cost: owed to the merchant (negative: owed by it)'),
  },
  { $id: 'SettlementLine' },
);
export type SettlementLine = Static<typeof SettlementLine>;

export const SettlementTotal = Type.Object(
  {
    currency: Type.String(),
    lines: Type.Integer(),
    cod_collected: Type.Number(),
    shipping_costs: Type.Number(),
    adjustments: Type.Number({ description: 'The net of the adjustment lines' }),
    net_payable: Type.Number(),
  },
  { $id: 'SettlementTotal' },
);

export const Settlement = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('settlement'),
    account: Type.String(),
    livemode: Type.Boolean(),
    status: Type.Enum([...SETTLEMENT_STATUSES]),
    period_start: Type.String(),
    period_end: Type.String(),
    timezone: Type.String(),
    totals: Type.Array(SettlementTotal, { description: 'One per currency; never mixed' }),
    lines: Type.Array(SettlementLine),
    created_at: Type.String({ format: 'date-time' }),
    issued_at: Nullable(Type.String({ format: 'date-time' })),
    paid_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'Settlement' },
);
export type Settlement = Static<typeof Settlement>;

export const SettlementList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Settlement), has_more: Type.Boolean() },
  { $id: 'SettlementList' },
);
export const SettlementListQuery = Type.Object(
  {
    account: Type.Optional(AccountFilter('The carrier: one account\u2019s settlements')),
    status: Type.Optional(Type.Enum([...SETTLEMENT_STATUSES])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type SettlementListQuery = Static<typeof SettlementListQuery>;

export const ExportQuery = Type.Object(
  { format: Type.Optional(Type.Enum(['csv', 'xlsx'], { default: 'csv' })) },
  { additionalProperties: false },
);

// Reports

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
