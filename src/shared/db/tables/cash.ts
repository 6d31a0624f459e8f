import type { Mode } from './columns.js';

/** Created by 017_money: cash a courier handed over (DESIGN §17). */
export interface CashHandoversTable {
  id: string;
  mode: Mode;
  courier_id: string;
  /** minor units, > 0 */
  amount: number;
  currency: string;
  /** Who received the cash (a person's name, a safe, a bank deposit reference). */
  received_by: string;
  notes: string | null;
  /** The courier's local day (YYYY-MM-DD) the handover counts for. */
  day: string;
  /** actorOf(principal) of whoever recorded it. */
  created_by: string;
  created_at: number;
  /** 040_cash_handover_voids: when it was voided (a wrong amount); null while it counts. */
  voided_at: number | null;
  /** actorOf(principal) of whoever voided it. */
  voided_by: string | null;
  void_reason: string | null;
}

/** Created by 017_money: a short or over day explained (one per courier, day and currency). */
export interface CashResolutionsTable {
  id: string;
  mode: Mode;
  courier_id: string;
  day: string;
  currency: string;
  /** minor units: the difference this note explained (handed − expected). */
  difference: number;
  note: string;
  resolved_by: string;
  resolved_at: number;
}
