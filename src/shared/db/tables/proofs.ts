import type { ID_DOCUMENT_TYPES } from './proof_settings.js';

export const RELATIONSHIPS = ['self', 'family', 'neighbor', 'doorman', 'coworker', 'other'] as const;
export const PAYMENT_METHODS = ['cash', 'card', 'bank_transfer', 'mobile_wallet'] as const;
export const COD_STATUSES = ['collected', 'short', 'over'] as const;

/** Created by 002_lifecycle. */
export interface ProofsTable {
  order_id: string;
  receiver_name: string;
  receiver_document: string | null;
  relationship: (typeof RELATIONSHIPS)[number] | null;
  signature_file: string | null;
  /** JSON array of file ids. */
  photo_files: string;
  /** minor units */
  collected_amount: number | null;
  payment_method: (typeof PAYMENT_METHODS)[number] | null;
  cod_status: (typeof COD_STATUSES)[number] | null;
  delivered_packages: number;
  lat: number | null;
  lng: number | null;
  delivered_at: number;
  /** 020: the receiver's ID document (id_check, age_check), when captured. */
  id_document_type: (typeof ID_DOCUMENT_TYPES)[number] | null;
  id_document_number: string | null;
  /** 020: 1 when the courier confirmed the receiver is 18 or older (age_check); null when not asked. */
  age_verified: number | null;
  /** 020: how the PIN was satisfied: `verified` (given right), `overridden` (by a dispatcher), null without one. */
  pin: 'verified' | 'overridden' | null;
  /** 024: the fix's accuracy radius (metres), its distance from the address and whether that is far (1/0). */
  accuracy_m: number | null;
  distance_from_address_m: number | null;
  far_from_address: number | null;
}
