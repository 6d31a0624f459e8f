/**
 * SMS segments (3GPP TS 23.038): a text of GSM-7 characters fits 160 in one segment and 153 in
 * each part of a longer one (the user data header takes 7); any other character makes the whole
 * text UCS-2, 70 in one and 67 per part, counted in UTF-16 units (an emoji takes two). The
 * extension table's characters (€ [ ] { } ^ ~ \ | and the form feed) take two septets each.
 */
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENDED = '\f^{}\\[~]|€';

const basic = new Set(GSM7_BASIC);
const extended = new Set(GSM7_EXTENDED);

export type SmsEncoding = 'GSM-7' | 'UCS-2';

/**
 * Our own words for an SMS (a failure's reason) in GSM-7: a letter outside it written without its
 * accent when that makes it GSM-7 ('dirección' → 'direccion', 'não' → 'nao', 'ç' → 'c'), so that
 * one word we insert does not turn the merchant's whole text into UCS-2. Letters GSM-7 has (é, ñ,
 * ü, à) stay; anything else stays as it is.
 */
export function gsm7Words(text: string): string {
  let out = '';
  for (const ch of text) {
    if (basic.has(ch) || extended.has(ch)) out += ch;
    else {
      const bare = ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
      out += bare !== '' && [...bare].every((c) => basic.has(c)) ? bare : ch;
    }
  }
  return out;
}

export interface SegmentCount {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 units (UCS-2). */
  length: number;
  segments: number;
}

export function countSegments(text: string): SegmentCount {
  let septets = 0;
  let gsm = true;
  for (const ch of text) {
    if (basic.has(ch)) septets += 1;
    else if (extended.has(ch)) septets += 2;
    else {
      gsm = false;
      break;
    }
  }
  if (gsm) return { encoding: 'GSM-7', length: septets, segments: septets <= 160 ? 1 : Math.ceil(septets / 153) };
  const units = text.length;
  return { encoding: 'UCS-2', length: units, segments: units <= 70 ? 1 : Math.ceil(units / 67) };
}
