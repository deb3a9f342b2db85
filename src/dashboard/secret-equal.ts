import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a secret a request carries (a token, a session or CSRF cookie) is the expected one,
 * compared in constant time on bytes. Both sides are hashed first, so `timingSafeEqual` always
 * gets two 32-byte digests: a value of any other length, in characters or in bytes (a multi-byte
 * character, a lone surrogate, 10 kB of junk), is simply unequal instead of a `RangeError`, and
 * the time taken tells nothing about the expected secret's length or content.
 */
export function secretsEqual(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

/** SHA-256 of the string's UTF-8 bytes (a lone surrogate becomes U+FFFD's bytes; never throws). */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
