import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** DESIGN §8: scrypt, N = 2^15, r = 8, p = 1 (OWASP's minimum for scrypt), 16-byte salt, 32-byte key. */
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** scrypt needs 128·N·r bytes (32 MiB here); Node's default ceiling is exactly that, so give it room. */
const MAXMEM = 64 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 10;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N: n, r, p, maxmem: MAXMEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$key` (base64url): the parameters travel with the hash, so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, key] = stored.split('$');
  if (alg !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A real hash of a random password nobody knows. Sign-in verifies against it when the email is
 * unknown, so a wrong email costs the same scrypt as a wrong password and timing tells nothing.
 */
export const DUMMY_HASH = 'scrypt$32768$8$1$I5pwLg9al_bL6iTZSQCqxg$G7-VNq5Z6iCeQ1LCzlCymhgcKZeGs_k2KToK-0IgiAY';
