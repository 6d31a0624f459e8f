import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { iso } from '../../shared/time.js';
import { fileForProof, fileUrl } from '../files/service.js';
import { toMajor, toMinor } from '../orders/pricing.js';
import { proofLevelsOf } from '../orders/proof-settings.js';
import type { OrderRow } from '../orders/repo.js';
import type { Fix } from './position.js';
import type { ProofRow } from './repo.js';
import type { DeliverBody, ProofOfDelivery } from './schemas.js';

/** Links inside webhook payloads must outlive the 24 h retry window, since the bytes never change. */
export const EVENT_LINK_TTL_SECONDS = 7 * 24 * 3600;

const missing = (param: string, why: string) =>
  new ApiError('parameter_missing', `Missing required parameter: ${param} (${why}).`, param);

/** Checks a deliver body against what the order requires, and builds the proof row. */
export async function buildProof(
  ctx: AppContext,
  scope: Scope,
  order: OrderRow,
  body: DeliverBody,
  now: number,
  fix: Fix | null = null,
): Promise<ProofRow> {
  if (order.requires_signature === 1 && !body.signature_file) {
    throw missing('signature_file', 'this order requires a signature');
  }
  const photos = body.photo_files ?? [];
  if (order.requires_photo === 1 && photos.length === 0) throw missing('photo_files', 'this order requires a photo');
  const levels = proofLevelsOf(order);
  const ageChecked = levels.age_check === 'required';
  if ((levels.id_check === 'required' || ageChecked) && !body.id_document) {
    throw missing('id_document', "this order records the receiver's ID document");
  }
  if (ageChecked && body.age_verified === undefined) {
    throw missing('age_verified', 'this order may only be handed to someone 18 or older');
  }
  if (ageChecked && body.age_verified === false) {
    throw new ApiError(
      'parameter_invalid',
      'Invalid age_verified: this order may only be handed to someone 18 or older; record a failed attempt instead.',
      'age_verified',
    );
  }
  if (body.signature_file) await fileForProof(ctx, scope, order, body.signature_file, 'signature', 'signature_file');
  for (const [i, id] of photos.entries()) await fileForProof(ctx, scope, order, id, 'photo', `photo_files[${i}]`);

  const cod = order.cash_on_delivery;
  if (cod > 0 && body.collected_amount === undefined)
    throw missing('collected_amount', 'the order has cash on delivery');
  if (cod > 0 && body.payment_method === undefined) throw missing('payment_method', 'the order has cash on delivery');
  let collected: number | null = null;
  if (body.collected_amount !== undefined) {
    const minor = toMinor(body.collected_amount);
    if (minor === undefined) {
      throw new ApiError(
        'parameter_invalid',
        'Invalid collected_amount: at most 2 decimal places.',
        'collected_amount',
      );
    }
    collected = minor;
  }
  const delivered = body.delivered_packages ?? order.packages;
  if (delivered > order.packages) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid delivered_packages: the order has ${order.packages} package(s).`,
      'delivered_packages',
    );
  }
  // A wrong amount is recorded and flagged for reconciliation, never refused: the cash already changed hands.
  const codStatus = collected === null ? null : collected === cod ? 'collected' : collected < cod ? 'short' : 'over';
  return {
    order_id: order.id,
    receiver_name: body.receiver_name,
    receiver_document: body.receiver_document ?? null,
    relationship: body.relationship ?? null,
    signature_file: body.signature_file ?? null,
    photo_files: photos,
    collected_amount: collected,
    payment_method: body.payment_method ?? null,
    cod_status: cod === 0 && collected === 0 ? null : codStatus,
    delivered_packages: delivered,
    lat: fix?.lat ?? null,
    lng: fix?.lng ?? null,
    accuracy_m: fix?.accuracy_m ?? null,
    distance_from_address_m: fix?.distance_m ?? null,
    far_from_address: fix === null || fix.far === null ? null : fix.far ? 1 : 0,
    delivered_at: now,
    id_document_type: body.id_document?.type ?? null,
    id_document_number: body.id_document?.number ?? null,
    age_verified: body.age_verified === undefined ? null : body.age_verified ? 1 : 0,
    // Set by the deliver move once the PIN is checked (lifecycle/pin.ts), the last check of all.
    pin: null,
  };
}

export async function presentProof(ctx: AppContext, p: ProofRow, ttlSeconds?: number): Promise<ProofOfDelivery> {
  return {
    object: 'proof_of_delivery',
    order: p.order_id,
    receiver_name: p.receiver_name,
    receiver_document: p.receiver_document,
    relationship: p.relationship,
    signature_url: p.signature_file ? await fileUrl(ctx, p.signature_file, ttlSeconds) : null,
    photo_urls: await Promise.all(p.photo_files.map((id) => fileUrl(ctx, id, ttlSeconds))),
    collected_amount: p.collected_amount === null ? null : toMajor(p.collected_amount),
    payment_method: p.payment_method,
    cod_status: p.cod_status,
    delivered_packages: p.delivered_packages,
    lat: p.lat,
    lng: p.lng,
    accuracy_m: p.accuracy_m,
    distance_from_address_m: p.distance_from_address_m,
    far_from_address: p.far_from_address === null ? null : p.far_from_address === 1,
    delivered_at: iso(p.delivered_at),
    id_document:
      p.id_document_type === null || p.id_document_number === null
        ? null
        : { type: p.id_document_type, number: p.id_document_number },
    age_verified: p.age_verified === null ? null : p.age_verified === 1,
    pin: p.pin,
  };
}
