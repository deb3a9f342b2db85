import { toHex } from './bytes.js';

/*
 * SHA-256 (FIPS 180-4) in plain JavaScript, synchronous and on every runtime: for the few
 * places that need a digest at once and rarely (the quarantine's key of a payload without an
 * id), where node:crypto is not there (Cloudflare Workers without nodejs_compat) and WebCrypto's
 * digest is asynchronous. Checked against node:crypto in test/sha256.test.ts. Not for signatures:
 * those use node:crypto or WebCrypto (signature.ts, web-signature.ts).
 */

/** The first `count` primes. */
function primes(count: number): number[] {
  const found: number[] = [];
  for (let n = 2; found.length < count; n++) if (found.every((p) => n % p !== 0)) found.push(n);
  return found;
}

/** The first 32 bits of the fractional part of `x` (FIPS 180-4's way of making its constants). */
const fraction32 = (x: number): number => Math.floor((x - Math.floor(x)) * 2 ** 32) >>> 0;

/** The round constants: the cube roots of the first 64 primes; the initial hash: the square roots of the first 8. */
const K = Uint32Array.from(primes(64), (p) => fraction32(Math.cbrt(p)));
const INITIAL = primes(8).map((p) => fraction32(Math.sqrt(p)));

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** The SHA-256 of `data` (text as UTF-8) in lower-case hex. */
export function sha256Hex(data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  // The message, a 1 bit, zeros, and its length in bits as 64 bits: a multiple of 64 bytes.
  const padded = new Uint8Array((((bytes.length + 8) >> 6) + 1) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bytes.length / 0x20000000));
  view.setUint32(padded.length - 4, (bytes.length << 3) >>> 0);
  const h = Uint32Array.from(INITIAL);
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block + 4 * t);
    for (let t = 16; t < 64; t++) {
      const s0 = rotr(w[t - 15]!, 7) ^ rotr(w[t - 15]!, 18) ^ (w[t - 15]! >>> 3);
      const s1 = rotr(w[t - 2]!, 17) ^ rotr(w[t - 2]!, 19) ^ (w[t - 2]! >>> 10);
      w[t] = w[t - 16]! + s0 + w[t - 7]! + s1;
    }
    let [a, b, c, d, e, f, g, hh] = [h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!];
    for (let t = 0; t < 64; t++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t]! + w[t]!) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      [hh, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
    }
    const sums = [a, b, c, d, e, f, g, hh];
    // A Uint32Array keeps each sum modulo 2^32.
    for (let i = 0; i < 8; i++) h[i] = h[i]! + sums[i]!;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(4 * i, h[i]!);
  return toHex(out);
}
