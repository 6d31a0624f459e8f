// Settlements: what the carrier owes a merchant for a period (docs/money.md). Split by topic from
// schemas.ts (the cash schemas), whose Day and Amount field builders these share.
import { type Static, Type } from 'typebox';
import { SETTLEMENT_STATUSES } from '../../shared/db/tables/settlements.js';
import { AccountFilter, Nullable } from '../../shared/params.js';
import { Amount, Day } from './schemas.js';

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
