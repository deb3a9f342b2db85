import { ConfigurationError, WebhookVerificationError } from '../kernel/errors.js';

/*
 * The platform's signature scheme without a crypto library: the headers, their parsing, the
 * freshness window, the claimed signature's decoding and the comparison of digests. Computing
 * an HMAC is the one step left to a {@link HmacEngine}: node:crypto on Node.js (signature.ts,
 * synchronous and several times faster), WebCrypto where Node's modules are absent
 * (web-signature.ts: Cloudflare Workers without nodejs_compat, edge runtimes). No module here
 * imports anything a Worker lacks.
 */

/**
 * The platform's signature scheme: `x-svc-signature` is the lower-case hex HMAC-SHA256 of
 * `${x-svc-timestamp}.${rawBody}`, keyed with the whole webhook secret (`whsec_…`) as UTF-8.
 */
export const SIGNATURE_HEADER = 'x-svc-signature';
/** The header with the Unix time in seconds that the signature covers, `x-svc-timestamp`. */
export const TIMESTAMP_HEADER = 'x-svc-timestamp';
/** The older variant: `sha256=<hex>` over the body alone, with no replay protection. */
export const LEGACY_SIGNATURE_HEADER = 'x-service-signature';
/** Requests whose timestamp is more than this many seconds away from now (either way) are refused. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
export const SECRET_PREFIX = 'whsec_';

/** The request body exactly as received. A parsed object is refused: its bytes are gone. */
export type RawPayload = string | Uint8Array | ArrayBuffer;
/** One secret, or several while rotating (any one of them may match). */
export type WebhookSecret = string | readonly string[];
/**
 * A header's value as frameworks hand it over: node:http and Express give
 * `string | string[] | undefined`, Fetch's `Headers.get` gives `string | null`. A header sent
 * more than once (an array of several values) is refused as malformed.
 */
export type HeaderValue = string | readonly string[] | null | undefined;

/** What a successful verification tells: which secret matched and the verified timestamp. */
export interface VerifiedSignature {
  /** Index in the secret list of the secret that matched (0 when a single secret was given). */
  secretIndex: number;
  /** The verified timestamp, Unix seconds. */
  timestamp: number;
}

/**
 * HMAC-SHA256 under a fixed list of secrets, made once for them (a receiver makes one when its
 * factory runs): `digests(prefix, body)` is the MAC of `prefix` followed by `body` under each
 * secret, in the list's order, 32 bytes each. `equal` compares two 32-byte digests in constant time.
 */
export interface HmacKeys {
  digests: (prefix: string, body: Uint8Array | string) => readonly Uint8Array[] | Promise<readonly Uint8Array[]>;
  equal: (a: Uint8Array, b: Uint8Array) => boolean;
  /**
   * The engine's own decoding of a well-formed claim (exactly 64 hexadecimal digits) into bytes
   * that `equal` takes cheaply; `undefined` for any other claim, which the scheme's decoding
   * then checks, refuses or pads. @default the scheme's decoding for every claim
   */
  decodeClaim?: ClaimDecoder;
}

/** Decodes a claim of exactly 64 hexadecimal digits to its 32 bytes; `undefined` for anything else. */
export type ClaimDecoder = (signatureHex: string) => Uint8Array | undefined;

/** {@link HmacKeys} that compute at once (node:crypto's). */
export interface SyncHmacKeys extends HmacKeys {
  digests: (prefix: string, body: Uint8Array | string) => readonly Uint8Array[];
}

/** Makes the {@link HmacKeys} of a list of secrets: node:crypto's (signature.ts) or WebCrypto's (web-signature.ts). */
export type HmacEngine = (secrets: readonly string[]) => HmacKeys;

/** What is checked before any MAC is computed: the request's claim, its age, the bytes it covers. */
export interface PreparedVerification {
  /** The secrets to try, in order. */
  secrets: readonly string[];
  /** The text signed before the body: `${timestamp}.` for `x-svc-signature`, nothing for the legacy form. */
  prefix: string;
  body: Uint8Array | string;
  /** The signature as sent (hex), for the mismatch's hints. */
  signatureHex: string;
  /** The claimed MAC as 32 bytes (see {@link decodeSignature}). */
  claimed: Uint8Array;
  /** The verified timestamp (Unix seconds); 0 for the legacy form, which signs none. */
  timestamp: number;
}

export const DIGEST_BYTES = 32;
const DECIMAL_SECONDS = /^\d{1,15}$/;

/**
 * Checks the headers and the freshness of an `x-svc-signature` request, throwing its
 * {@link WebhookVerificationError}; what is left is comparing MACs ({@link matchingSecret}).
 */
export function prepareVerification(options: {
  payload: RawPayload;
  secret: WebhookSecret;
  signature: HeaderValue;
  timestamp: HeaderValue | number;
  toleranceSeconds: number;
  now: number;
  decodeClaim?: ClaimDecoder | undefined;
}): PreparedVerification {
  const body = rawBytes(options.payload);
  const secrets = normalizeSecrets(options.secret);
  if (!Number.isFinite(options.toleranceSeconds) || options.toleranceSeconds < 0) {
    throw new ConfigurationError({ option: 'toleranceSeconds', reason: 'must be a non-negative number' });
  }
  const signatureHex = requireHeader(options.signature, SIGNATURE_HEADER);
  const timestamp = parseTimestampHeader(options.timestamp, TIMESTAMP_HEADER);
  const claimed = options.decodeClaim?.(signatureHex) ?? decodeSignature(signatureHex);
  checkFreshness(timestamp.seconds, options.toleranceSeconds, options.now);
  // The signed text is the header as sent, a dot, and the body.
  return { secrets, prefix: `${timestamp.text}.`, body, signatureHex, claimed, timestamp: timestamp.seconds };
}

/** The same for the legacy `x-service-signature: sha256=<hex>`, which covers the body alone. */
export function prepareLegacyVerification(options: {
  payload: RawPayload;
  secret: WebhookSecret;
  signature: HeaderValue;
  decodeClaim?: ClaimDecoder | undefined;
}): PreparedVerification {
  const body = rawBytes(options.payload);
  const secrets = normalizeSecrets(options.secret);
  const header = requireHeader(options.signature, LEGACY_SIGNATURE_HEADER);
  if (!header.startsWith('sha256=')) {
    throw new WebhookVerificationError('MALFORMED_SIGNATURE', `${LEGACY_SIGNATURE_HEADER} must have the form sha256=<hex>`, {
      header: LEGACY_SIGNATURE_HEADER,
    });
  }
  const signatureHex = header.slice('sha256='.length);
  return { secrets, prefix: '', body, signatureHex, claimed: options.decodeClaim?.(signatureHex) ?? decodeSignature(signatureHex), timestamp: 0 };
}

/**
 * Compares the claimed signature with the digest of every secret, always all of them and always
 * over 32 bytes, so neither the length of the claim nor the position of a difference changes
 * the work done. Returns the index of the first secret that matched; throws `SIGNATURE_MISMATCH`.
 */
export function matchingSecret(prepared: PreparedVerification, digests: readonly Uint8Array[], equal: HmacKeys['equal']): number {
  const { secrets } = prepared;
  const lengthMatches = prepared.signatureHex.length === DIGEST_BYTES * 2;
  let matched = -1;
  for (let i = 0; i < secrets.length; i++) {
    const same = equal(digests[i]!, prepared.claimed);
    if (same && lengthMatches && matched === -1) matched = i;
  }
  if (matched === -1) throw mismatch(secrets, prepared.signatureHex);
  return matched;
}

/**
 * Constant-time equality of two byte arrays of the same length: every byte is looked at, and
 * the result depends on all of them at once (no early exit). Arrays of different lengths are unequal.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let difference = 0;
  for (let i = 0; i < a.byteLength; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** A timestamp for signing: the given one, checked, or now. */
export function signingTimestamp(timestamp: number | undefined): number {
  const seconds = timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new ConfigurationError({ option: 'timestamp', reason: 'must be a non-negative integer number of seconds' });
  }
  return seconds;
}

export function rawBytes(payload: unknown): Uint8Array | string {
  if (typeof payload === 'string' || payload instanceof Uint8Array) return payload;
  if (payload instanceof ArrayBuffer) return new Uint8Array(payload);
  throw new WebhookVerificationError(
    'PAYLOAD_NOT_RAW',
    `The signature covers the raw request bytes, but the payload is ${describe(payload)}. ` +
      'A body parser (e.g. express.json()) ran first: mount the webhook handler before it, ' +
      'or pass the unparsed Buffer/string.',
    { received_type: describe(payload) },
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'a parsed object' : typeof value;
}

/** The secrets as a non-empty list of non-empty strings; throws `NO_SECRET` otherwise. */
export function normalizeSecrets(secret: unknown): string[] {
  if (typeof secret === 'string' && secret.length > 0) return [secret];
  const list: unknown[] = Array.isArray(secret) ? secret : [secret];
  const usable = list.filter((s): s is string => typeof s === 'string' && s.length > 0);
  if (usable.length === 0 || usable.length !== list.length) {
    throw new WebhookVerificationError('NO_SECRET', 'No usable webhook secret: give a non-empty string or a list of them', {
      secrets_given: list.length,
    });
  }
  return usable;
}

function requireHeader(value: HeaderValue, header: string): string {
  const single = singleValue(value, 'MALFORMED_SIGNATURE', header);
  const trimmed = typeof single === 'string' ? single.trim() : '';
  if (trimmed === '') throw new WebhookVerificationError('MISSING_SIGNATURE', `The ${header} header is missing`, { header });
  return trimmed;
}

/** A header sent once; one sent several times is ambiguous, so it is refused. */
function singleValue<T>(value: T | readonly string[], code: 'MALFORMED_SIGNATURE' | 'MALFORMED_TIMESTAMP', header: string): T | string | undefined {
  if (!Array.isArray(value)) return value as T;
  const values = value as readonly string[];
  if (values.length > 1) throw new WebhookVerificationError(code, `The ${header} header was sent more than once`, { header });
  return values[0];
}

/** A timestamp header's Unix seconds and its text as sent (what is signed); throws when missing or not whole seconds. */
export function parseTimestampHeader(header: HeaderValue | number, name: string): { seconds: number; text: string } {
  const value = singleValue(header, 'MALFORMED_TIMESTAMP', name);
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    throw new WebhookVerificationError('MISSING_TIMESTAMP', `The ${name} header is missing`, { header: name });
  }
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (!DECIMAL_SECONDS.test(text)) {
    throw new WebhookVerificationError('MALFORMED_TIMESTAMP', `The ${name} header must be Unix time in whole seconds`, { header: name });
  }
  return { seconds: Number(text), text };
}

/** Throws `TIMESTAMP_TOO_OLD` or `TIMESTAMP_IN_FUTURE` when the timestamp is outside the window around now (ms). */
export function checkFreshness(timestamp: number, toleranceSeconds: number, nowMs: number): void {
  const skew = Math.floor(nowMs / 1000) - timestamp;
  if (skew > toleranceSeconds) {
    throw new WebhookVerificationError(
      'TIMESTAMP_TOO_OLD',
      `The timestamp is ${skew} s old; at most ${toleranceSeconds} s are accepted (a replayed request, or a clock that is off)`,
      { skew_seconds: skew, tolerance_seconds: toleranceSeconds },
    );
  }
  if (-skew > toleranceSeconds) {
    const hint = timestamp > 1e11 ? ' It looks like milliseconds; the header carries seconds.' : '';
    throw new WebhookVerificationError(
      'TIMESTAMP_IN_FUTURE',
      `The timestamp is ${-skew} s in the future; at most ${toleranceSeconds} s are accepted.${hint}`,
      { skew_seconds: skew, tolerance_seconds: toleranceSeconds },
    );
  }
}

/**
 * The claimed signature as 32 bytes. A claim of the wrong length is zero-padded (or cut) to 32
 * bytes, so that it is compared like any other and the work done does not depend on it.
 */
function decodeSignature(signatureHex: string): Uint8Array {
  const bytes = new Uint8Array(DIGEST_BYTES);
  // One pass over the character codes, checking and decoding with a table: no regular
  // expression and no substring per byte on the request path. An invalid digit's value is -1,
  // so OR-ing every value leaves the sign bit set when any character is not a hexadecimal digit.
  const length = signatureHex.length;
  const pairs = Math.min(length >> 1, DIGEST_BYTES);
  let invalid = length === 0 ? -1 : 0;
  for (let i = 0; i < pairs; i++) {
    const high = hexValue(signatureHex.charCodeAt(2 * i));
    const low = hexValue(signatureHex.charCodeAt(2 * i + 1));
    invalid |= high | low;
    bytes[i] = (high << 4) | low;
  }
  // Past the 32nd byte, and a lone last digit: checked, not decoded.
  for (let i = 2 * pairs; i < length; i++) invalid |= hexValue(signatureHex.charCodeAt(i));
  if (invalid < 0) throw malformedSignature(signatureHex);
  return bytes;
}

/** The value of each ASCII hexadecimal digit by character code; -1 for every other character. */
const HEX_VALUES = Int8Array.from({ length: 128 }, (_, code) => {
  const digit = String.fromCharCode(code);
  return /^[0-9a-fA-F]$/.test(digit) ? Number.parseInt(digit, 16) : -1;
});

/** The value of one hexadecimal digit's character code, or -1 for any other character. */
function hexValue(code: number): number {
  return code < 128 ? HEX_VALUES[code]! : -1;
}

function malformedSignature(signature: string): WebhookVerificationError {
  const hint = signature.startsWith('sha256=')
    ? ` This is the legacy ${LEGACY_SIGNATURE_HEADER} form; ${SIGNATURE_HEADER} carries bare hex.`
    : '';
  return new WebhookVerificationError('MALFORMED_SIGNATURE', `The signature must be hexadecimal.${hint}`, {
    header: SIGNATURE_HEADER,
    length: signature.length,
  });
}

function mismatch(secrets: readonly string[], signatureHex: string): WebhookVerificationError {
  const hints: string[] = [];
  if (signatureHex.length !== DIGEST_BYTES * 2) {
    hints.push(`the signature has ${signatureHex.length} hex digits, a SHA-256 HMAC has ${DIGEST_BYTES * 2}`);
  }
  secrets.forEach((secret, i) => {
    const which = secrets.length > 1 ? `secret #${i + 1}` : 'the secret';
    if (secret !== secret.trim()) hints.push(`${which} has leading or trailing whitespace`);
    if (!secret.startsWith(SECRET_PREFIX)) hints.push(`${which} does not start with ${SECRET_PREFIX} (use the whole secret as the key)`);
  });
  const tried = secrets.length === 1 ? '1 secret' : `${secrets.length} secrets`;
  const message =
    `The signature does not match the body (tried ${tried}). ` +
    'Check the secret and that the body is the raw, unchanged request body.' +
    (hints.length > 0 ? ` Note: ${hints.join('; ')}.` : '');
  return new WebhookVerificationError('SIGNATURE_MISMATCH', message, { secrets_tried: secrets.length, hints });
}
