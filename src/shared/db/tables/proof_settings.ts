/** What a delivery asks for, per proof: always, when offered, or not at all (DESIGN §14). */
export const PROOF_LEVELS = ['required', 'optional', 'off'] as const;
export type ProofLevel = (typeof PROOF_LEVELS)[number];

/** The proofs a delivery can capture, in the order the courier app asks for them. */
export const PROOF_KINDS = ['signature', 'photo', 'pin', 'id_check', 'age_check'] as const;
export type ProofKind = (typeof PROOF_KINDS)[number];

/** Each proof's level: what the courier must capture, may capture, or is not asked for. */
export type ProofLevels = Record<ProofKind, ProofLevel>;

/** The ID documents a receiver may show (id_check, age_check). */
export const ID_DOCUMENT_TYPES = ['national_id', 'foreign_id', 'passport', 'driver_license', 'other'] as const;

/** A delivery PIN's state: `set` until its fifth wrong try `locked` it, `overridden` by a dispatcher then. */
export const PIN_STATES = ['set', 'locked', 'overridden'] as const;
export type PinState = (typeof PIN_STATES)[number];

/** Created by 020_proof_pin: an account's proof settings, or the carrier's defaults under `'*'`. */
export interface ProofSettingsTable {
  account_id: string;
  signature: ProofLevel;
  photo: ProofLevel;
  pin: ProofLevel;
  id_check: ProofLevel;
  age_check: ProofLevel;
  updated_at: number;
}
