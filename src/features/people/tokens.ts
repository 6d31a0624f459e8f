import { randomBytes, randomInt } from 'node:crypto';
import { sha256Hex } from '../../shared/ids.js';

/** A session or invitation token: 256 random bits. Only its hash is stored. */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** Tokens carry 256 random bits, so a fast unsalted hash is enough (nothing to brute-force). */
export const hashToken = (token: string): string => sha256Hex(token);

/** No 0/O, 1/I/L or U: a code read aloud or typed on a phone has one spelling. 30^8 ≈ 6.6·10^11. */
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
export const CODE_LENGTH = 8;

export function newCode(): string {
  let out = '';
  for (let i = 0; i < CODE_LENGTH; i++) out += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return out;
}

/** Typed codes forgive case, spaces and dashes; undefined when it cannot be a code. */
export function normalizeCode(input: string): string | undefined {
  const s = input.toUpperCase().replace(/[\s-]/g, '');
  return s.length === CODE_LENGTH && [...s].every((c) => CODE_ALPHABET.includes(c)) ? s : undefined;
}

/** Codes are short, so they are hashed with a purpose prefix; the lock-out is what stops guessing. */
export const hashCode = (code: string): string => sha256Hex(`courier-code\0${code}`);
