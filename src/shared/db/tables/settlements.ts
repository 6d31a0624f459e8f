import type { Mode } from './columns.js';

export const SETTLEMENT_STATUSES = ['draft', 'issued', 'paid'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** Created by 017_money: what the carrier owes one merchant for a period (DESIGN §17). */
export interface SettlementsTable {
  id: string;
  mode: Mode;
  account_id: string;
  status: SettlementStatus;
  /** Local days (YYYY-MM-DD), inclusive, read in `timezone` (the account's). */
  period_start: string;
  period_end: string;
  timezone: string;
  created_at: number;
  issued_at: number | null;
  paid_at: number | null;
  updated_at: number;
}

/** `order`: an order settled for the first time; `adjustment`: a change to one settled before. */
export type SettlementLineKind = 'order' | 'adjustment';

/** Created by 017_money. Amounts in minor units of `currency`; net_payable = cod_collected − shipping_cost. */
export interface SettlementLinesTable {
  id: string;
  settlement_id: string;
  position: number;
  kind: SettlementLineKind;
  order_id: string;
  tracking_code: string;
  external_order_id: string | null;
  order_status: string;
  delivered_at: number | null;
  currency: string;
  cod_collected: number;
  shipping_cost: number;
  net_payable: number;
}
