import fc from 'fast-check';

/*
 * Values a client can put where the dashboard expects a token, a cookie or a path: every length
 * in characters and in bytes around the real tokens' 43, multi-byte characters (2, 3 and 4 bytes
 * in UTF-8, a lone surrogate), bytes that are not UTF-8, percent-encoding that is invalid or
 * decodes to invalid UTF-8, and values of up to 10 kB.
 */

const BASE64URL = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'];
/** 2-, 3- and 4-byte characters, a lone surrogate, NUL, the replacement character, a zero-width space. */
const ODD_CHARACTERS = ['é', 'ß', '€', '\u200b', '😀', '\ud800', '\udfff', '\u0000', '\ufffd'];
/** Percent-encoding a decoder trips over: truncated, not hex, overlong, a surrogate, 0xFF. */
const BAD_PERCENT = ['%', '%Z', '%0', '%C3', '%E2%82', '%F0%9F%98', '%ED%A0%80', '%C0%AF', '%FF', '%%41', '%c3%A9', '+', '=', '&token=', ';'];
/** The longest value: 10 kB (node's header limit is 16 KiB, so it fits in a cookie too). */
export const LONGEST = 10_240;

/** The length of every token and cookie the dashboard makes (32 random bytes in base64url). */
export const TOKEN_LENGTH = 43;

/** `length` units of `filler` with `inserts` put in at the given places (each place taken modulo the length so far). */
function spliced<T>(filler: T[], inserts: readonly (readonly [number, T[]])[]): T[] {
  const result = [...filler];
  for (const [place, items] of inserts) result.splice(place % (result.length + 1), 0, ...items);
  return result;
}

/**
 * Exactly as long as a token in UTF-16 code units, or one or two off (what `string.length`
 * compares), with one to three multi-byte characters somewhere: equal lengths in characters,
 * different lengths in bytes — the values that made the old check throw.
 */
export const tokenLengthInCharacters: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: TOKEN_LENGTH - 2, max: TOKEN_LENGTH + 2 }), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...ODD_CHARACTERS)), { minLength: 1, maxLength: 3 }))
  .map(([length, odds]) => {
    const oddUnits = odds.reduce((sum, [, odd]) => sum + odd.length, 0);
    const filler = [...'A'.repeat(Math.max(0, length - oddUnits))];
    return spliced(filler, odds.map(([place, odd]) => [place, [odd]] as const)).join('');
  });

/** Strings of characters: a token's length with multi-byte characters in it, base64url near that length, any code points, up to 10 kB. */
export const characters: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: tokenLengthInCharacters, weight: 4 },
  { arbitrary: fc.string({ unit: fc.constantFrom(...BASE64URL), minLength: TOKEN_LENGTH - 5, maxLength: TOKEN_LENGTH + 5 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 60 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }), weight: 1 },
  { arbitrary: fc.integer({ min: TOKEN_LENGTH + 1, max: LONGEST }).map((length) => 'A'.repeat(length)), weight: 1 },
  { arbitrary: fc.constantFrom(...ODD_CHARACTERS).map((odd) => odd.repeat(Math.floor(LONGEST / Buffer.byteLength(odd)))), weight: 1 },
);

/**
 * A token's length in bytes (or one or two off) with one to three bytes of 0x80–0xFF in it: node
 * reads header bytes as latin1, so such a cookie is as long as a token in characters and longer in
 * UTF-8.
 */
export const tokenLengthInBytes: fc.Arbitrary<Buffer> = fc
  .tuple(fc.integer({ min: TOKEN_LENGTH - 2, max: TOKEN_LENGTH + 2 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0x80, max: 0xff })), { minLength: 1, maxLength: 3 }))
  .map(([length, highs]) => Buffer.from(spliced(Array<number>(length - highs.length).fill(0x41), highs.map(([place, byte]) => [place, [byte]] as const))));

/** Every byte as `%XX`. */
function percentEncoded(bytes: Uint8Array): string {
  return [...bytes].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** Unreserved characters as they are, every other UTF-8 byte as `%XX` (a lone surrogate becomes U+FFFD's). */
function encodedUtf8(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : percentEncoded(Uint8Array.of(byte)))).join('');
}

/**
 * A query value as it goes into the request line (printable ASCII, as node's parser requires):
 * encoded characters, raw bytes percent-encoded (most are not UTF-8), and broken percent-encoding,
 * mixed.
 */
export const queryValue: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: characters.map(encodedUtf8), weight: 3 },
  { arbitrary: tokenLengthInBytes.map((bytes) => percentEncoded(bytes)), weight: 1 },
  { arbitrary: fc.uint8Array({ maxLength: 60 }).map(percentEncoded), weight: 1 },
  { arbitrary: fc.array(fc.oneof(fc.constantFrom(...BAD_PERCENT), characters.map(encodedUtf8), fc.string({ unit: fc.constantFrom(...BASE64URL), maxLength: 43 })), { maxLength: 6 }).map((parts) => parts.join('')), weight: 1 },
);

/**
 * A cookie value as raw bytes on the wire: UTF-8 of the characters above (node reads header bytes
 * as latin1, so `é` arrives as two characters), arbitrary bytes without CR and LF (most are not
 * UTF-8; control bytes make node's parser answer 400 itself), percent-encoded forms.
 */
export const cookieBytes: fc.Arbitrary<Buffer> = fc.oneof(
  tokenLengthInBytes,
  characters.map((text) => Buffer.from(text, 'utf8')),
  fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes.filter((byte) => byte !== 0x0d && byte !== 0x0a))),
  queryValue.map((text) => Buffer.from(text, 'latin1')),
);

/** The Cookie header: the named cookie with a hostile value, alone, beside others, or twice. */
export function cookieHeader(name: string): fc.Arbitrary<Buffer> {
  return fc
    .tuple(fc.constantFrom('', 'other=1; ', `${name}=first; `), cookieBytes, fc.constantFrom('', '; other=1', `; ${name}=second`))
    .map(([before, value, after]) => Buffer.concat([Buffer.from(`${before}${name}=`), value, Buffer.from(after)]));
}

/** Path segments: ordinary ones, dot segments raw and percent-encoded in any case, empty ones, backslashes, bad encoding. */
const SEGMENTS = ['', '.', '..', '%2e', '%2E', '.%2e', '%2E%2e', '%2e.', 'webhooks', 'deliveries', 'assets', 'dashboard.css', 'receiver', 'events', 'evil.example', 'x', '%', '%zz', '%C3%A9', '%ED%A0%80', '\\', '\\..', '..\\', 'dlv_1'];

/** A path starting with `/`, as a request line carries it: often the base itself, otherwise segments below it. */
export function pathBelow(base: string): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constant(`${base}/`), weight: 1 },
    { arbitrary: fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 5 }).map((segments) => `${base}/${segments.join('/')}`), weight: 1 },
  );
}

/** The issue's own case: 42 × `A` and a two-byte character: 43 characters, 44 bytes. */
export const ISSUE_TOKEN = `${'A'.repeat(42)}%C3%A9`;
