/**
 * A prefixed random id in the platform's style: `evt_`, `wh_`, `dlv_` … followed by 22
 * URL-safe characters (128 bits), so ids are unguessable and never collide in practice. From
 * the Web Crypto API's generator, which Node.js and Workers both have as `crypto`.
 */
export function newId(prefix: string): string {
  return `${prefix}_${base64url(crypto.getRandomValues(new Uint8Array(16)))}`;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Base64url without padding, as Buffer's `toString('base64url')` writes it. */
export function base64url(bytes: Uint8Array): string {
  let text = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    text += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    text += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    text += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  return text;
}
