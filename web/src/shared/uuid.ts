/**
 * A random (version 4) UUID. `crypto.randomUUID` exists only in a secure context (https, or this
 * machine's own localhost): a phone that opens Ruta at a Wi-Fi address such as
 * http://192.168.1.20:3000 (README, "The public address") has `crypto.getRandomValues` but not
 * `randomUUID`, and a delivery confirmed there used to throw before it was queued. Both draw from the
 * browser's cryptographic generator; the fallback sets the version and variant bits of RFC 9562 §5.4.
 */
export function newUuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
