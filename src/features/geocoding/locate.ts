import type { AppContext } from '../../shared/context.js';
import { type GeocodeQuality, geocoderConfigured, searchAddress } from './client.js';

/** What is kept with an order about how its address was located (orders' `geocode`). */
export interface Located {
  quality: GeocodeQuality;
  confidence: number | null;
  label: string | null;
  needs_review: boolean;
}

/** Below this confidence a match is flagged for review even when it names a street or a house. */
export const REVIEW_BELOW = 0.5;

interface AddressParts {
  address: string;
  district?: string;
  city?: string;
  department?: string;
}

/** The one line a geocoder reads: the address, then the district, city and department it names. */
export function addressLine(a: AddressParts): string {
  return [a.address, a.district, a.city, a.department]
    .map((p) => p?.trim())
    .filter((p): p is string => Boolean(p))
    .join(', ');
}

/**
 * Coordinates for an address that came without them, or null when no geocoder is configured. A
 * geocoder that is down or finds nothing does not refuse the order: it is kept without coordinates
 * (as it would have been without a geocoder), `quality: 'none'`, flagged for review.
 */
export async function locateAddress(
  ctx: AppContext,
  a: AddressParts,
): Promise<{ point: { lat: number; lng: number } | null; located: Located } | null> {
  if (!geocoderConfigured(ctx)) return null;
  const none = {
    point: null,
    located: { quality: 'none' as const, confidence: null, label: null, needs_review: true },
  };
  let best: Awaited<ReturnType<typeof searchAddress>>[number] | undefined;
  try {
    [best] = await searchAddress(ctx, addressLine(a), 1);
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message }, 'geocoder failed; the order is kept without coordinates');
    return none;
  }
  if (!best) return none;
  return {
    point: { lat: best.lat, lng: best.lng },
    located: {
      quality: best.quality,
      confidence: best.confidence,
      label: best.label,
      needs_review: best.quality === 'area' || best.confidence < REVIEW_BELOW,
    },
  };
}
