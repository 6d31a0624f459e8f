import { type Static, Type } from 'typebox';
import { Currency, Nullable } from '../../shared/params.js';

// Courier cash: handovers, each day's lines, the end of day, short/over exceptions. Settlements
// are in settlement-schemas.ts, reports in report-schemas.ts (split by topic); both import the
// field builders below, and this file imports neither, so there is no import cycle.

/** A local day, YYYY-MM-DD. */
export const Day = (description: string) => Type.String({ format: 'date', description });
/** An amount of money as the API writes it. */
export const Amount = (description: string) => Type.Number({ description: `${description} (major units, 2 decimals)` });
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
