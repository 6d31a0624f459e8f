import { randomInt } from 'node:crypto';
import type { AppContext } from '../../shared/context.js';
import type { Executor } from '../../shared/db/index.js';
import { PROOF_KINDS, type ProofKind, type ProofLevels } from '../../shared/db/tables/proof_settings.js';
import * as repo from './proof-repo.js';
import type { ProofSettingsUpdate } from './proof-schemas.js';
import type { OrderCreate } from './schemas.js';

export type { ProofLevels };

/**
 * What an account gets until it or the carrier says otherwise: the order's own flags decide, with
 * the spec's defaults (a signature unless the order says `requires_signature: false`; no photo),
 * and nothing else is asked. So an account that never touches its settings behaves as before them.
 */
export const DEFAULT_PROOF: ProofLevels = {
  signature: 'optional',
  photo: 'optional',
  pin: 'off',
  id_check: 'off',
  age_check: 'off',
};

/** Whose settings: an account's, or the carrier's defaults (`null`), as for notification settings. */
export type ProofOwner = string | null;

/** The settings in force for `owner`: its own, else the carrier's, else the defaults. */
export async function proofSettingsFor(db: Executor, owner: ProofOwner) {
  const stored = await repo.proofSettingsOf(db, owner === null ? [repo.CARRIER] : [owner, repo.CARRIER]);
  const own = owner === null ? undefined : stored.get(owner);
  const levels = own ?? stored.get(repo.CARRIER) ?? DEFAULT_PROOF;
  return { levels, inherited: owner !== null && own === undefined };
}

function present(owner: ProofOwner, levels: ProofLevels, inherited: boolean) {
  return { object: 'proof_settings' as const, account: owner, inherited, ...levels };
}

export async function getProofSettings(ctx: AppContext, owner: ProofOwner) {
  const { levels, inherited } = await proofSettingsFor(ctx.db, owner);
  return present(owner, levels, inherited);
}

/** Merges the update into what is in force (an account's first update starts from the carrier's). */
export async function updateProofSettings(ctx: AppContext, owner: ProofOwner, u: ProofSettingsUpdate) {
  const { levels } = await proofSettingsFor(ctx.db, owner);
  const next: ProofLevels = { ...levels };
  for (const k of PROOF_KINDS) {
    const v = u[k];
    if (v !== undefined) next[k] = v;
  }
  await repo.putProofSettings(ctx.db, owner ?? repo.CARRIER, next, ctx.clock());
  return present(owner, next, false);
}

/** The order's own flags: `true` raises its proof to required; nothing an order says lowers one. */
function flagOf(body: OrderCreate, k: ProofKind): boolean | undefined {
  switch (k) {
    case 'signature':
      return body.requires_signature;
    case 'photo':
      return body.requires_photo;
    case 'pin':
      return body.requires_pin;
    case 'id_check':
      return body.requires_id_check;
    case 'age_check':
      return body.requires_age_check;
  }
}

/**
 * An order's levels at creation: the account's, raised to required by the order's flag. A
 * signature the order does not mention is required unless the account turned signatures off (the
 * spec's default is `requires_signature: true`); `false` lowers nothing the account requires.
 */
export function orderProof(settings: ProofLevels, body: OrderCreate): ProofLevels {
  const out = { ...settings };
  for (const k of PROOF_KINDS) {
    const flag = flagOf(body, k) ?? (k === 'signature' && settings.signature !== 'off');
    if (flag) out[k] = 'required';
  }
  // An age check is read off a document: the document is recorded whenever the age is checked.
  if (out.age_check === 'required') out.id_check = 'required';
  return out;
}

/** Levels of an order created before 020: its two flags, the rest off. */
export function proofLevelsOf(o: { proof: ProofLevels | null; requires_signature: number; requires_photo: number }) {
  return (
    o.proof ?? {
      ...DEFAULT_PROOF,
      signature: o.requires_signature === 1 ? 'required' : 'optional',
      photo: o.requires_photo === 1 ? 'required' : 'optional',
    }
  );
}

/**
 * A 4-digit PIN from the CSPRNG, every value equally likely (randomInt rejects the biased draws).
 * Only a required PIN is made: an optional one would be a code nobody has to give.
 */
export function newDeliveryPin(levels: ProofLevels): string | null {
  return levels.pin === 'required' ? String(randomInt(0, 10_000)).padStart(4, '0') : null;
}

/** Wrong PINs a delivery survives: the fifth locks it until a dispatcher's override. */
export const PIN_TRIES = 5;
