import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigurationError, WebhookVerificationError } from './errors.js';

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

/** What {@link signPayload} signs: the exact bytes sent, with the secret, at a time. */
export interface SignPayloadOptions {
  payload: RawPayload;
  secret: string;
  /** Unix time in seconds. @default the current time */
  timestamp?: number;
}

/** The signature, the timestamp it covers, and both as the headers to send. */
export interface SignedPayload {
  signature: string;
  timestamp: number;
  headers: { 'x-svc-signature': string; 'x-svc-timestamp': string };
}

/** What {@link verifySignature} checks: the raw body, the two header values as received, the secret(s). */
export interface VerifySignatureOptions {
  payload: RawPayload;
  /** The `x-svc-signature` header value, as the framework gives it. */
  signature: HeaderValue;
  /** The `x-svc-timestamp` header value (Unix seconds), as the framework gives it. */
  timestamp: HeaderValue | number;
  secret: WebhookSecret;
  /** @default 300 */
  toleranceSeconds?: number;
  /** The current time in milliseconds since the epoch. @default Date.now() */
  now?: number;
}

/** What a successful verification tells: which secret matched and the verified timestamp. */
export interface VerifiedSignature {
  /** Index in the secret list of the secret that matched (0 when a single secret was given). */
  secretIndex: number;
  /** The verified timestamp, Unix seconds. */
  timestamp: number;
}

const DIGEST_BYTES = 32;
const HEX_DIGITS = /^[0-9a-fA-F]+$/;
const DECIMAL_SECONDS = /^\d{1,15}$/;

/**
 * Signs a payload the way the platform does.
 *
 * @example
 * const { headers } = signPayload({ payload: body, secret: 'whsec_…' });
 * await fetch(url, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } });
 */
export function signPayload({ payload, secret, timestamp }: SignPayloadOptions): SignedPayload {
  const bytes = rawBytes(payload);
  const [key] = normalizeSecrets(secret);
  const seconds = timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new ConfigurationError({ option: 'timestamp', reason: 'must be a non-negative integer number of seconds' });
  }
  const signature = hmac(key!, `${seconds}.`, bytes).toString('hex');
  return {
    signature,
    timestamp: seconds,
    headers: { 'x-svc-signature': signature, 'x-svc-timestamp': String(seconds) },
  };
}

/**
 * Verifies `x-svc-signature` and `x-svc-timestamp` against the raw body. Throws a
 * {@link WebhookVerificationError} with a stable `code` when anything is off; returns which
 * secret matched otherwise. The comparison runs in constant time over every secret given.
 *
 * @example
 * verifySignature({
 *   payload: req.rawBody,
 *   signature: req.headers['x-svc-signature'],
 *   timestamp: req.headers['x-svc-timestamp'],
 *   secret: [process.env.WEBHOOK_SECRET, process.env.WEBHOOK_SECRET_PREVIOUS],
 * });
 */
export function verifySignature(options: VerifySignatureOptions): VerifiedSignature {
  const bytes = rawBytes(options.payload);
  const secrets = normalizeSecrets(options.secret);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new ConfigurationError({ option: 'toleranceSeconds', reason: 'must be a non-negative number' });
  }
  const signature = requireHeader(options.signature, 'MISSING_SIGNATURE', SIGNATURE_HEADER);
  const timestamp = parseTimestamp(options.timestamp);
  const claimed = decodeSignature(signature);
  checkFreshness(timestamp.seconds, tolerance, options.now ?? Date.now());
  // The signed text is the header as sent, a dot, and the body.
  const prefix = `${timestamp.text}.`;
  const secretIndex = findMatchingSecret(secrets, signature, claimed, (key) => hmac(key, prefix, bytes));
  return { secretIndex, timestamp: timestamp.seconds };
}

export interface SignLegacyPayloadOptions {
  payload: RawPayload;
  secret: string;
}

/** Signs with the legacy scheme: `x-service-signature: sha256=<hex>` over the body alone. */
export function signLegacyPayload({ payload, secret }: SignLegacyPayloadOptions): {
  signature: string;
  headers: { 'x-service-signature': string };
} {
  const [key] = normalizeSecrets(secret);
  const signature = `sha256=${hmac(key!, '', rawBytes(payload)).toString('hex')}`;
  return { signature, headers: { 'x-service-signature': signature } };
}

export interface VerifyLegacySignatureOptions {
  payload: RawPayload;
  /** The `x-service-signature` header value, `sha256=<hex>`. */
  signature: HeaderValue;
  secret: WebhookSecret;
}

/**
 * Verifies the legacy scheme. It signs no timestamp, so a captured request can be replayed
 * forever: use it only for senders that cannot send `x-svc-signature`.
 */
export function verifyLegacySignature(options: VerifyLegacySignatureOptions): { secretIndex: number } {
  const bytes = rawBytes(options.payload);
  const secrets = normalizeSecrets(options.secret);
  const header = requireHeader(options.signature, 'MISSING_SIGNATURE', LEGACY_SIGNATURE_HEADER);
  if (!header.startsWith('sha256=')) {
    throw new WebhookVerificationError('MALFORMED_SIGNATURE', `${LEGACY_SIGNATURE_HEADER} must have the form sha256=<hex>`, {
      header: LEGACY_SIGNATURE_HEADER,
    });
  }
  const signature = header.slice('sha256='.length);
  const claimed = decodeSignature(signature);
  return { secretIndex: findMatchingSecret(secrets, signature, claimed, (key) => hmac(key, '', bytes)) };
}

function hmac(key: string, prefix: string, body: Uint8Array | string): Buffer {
  return createHmac('sha256', key).update(prefix).update(body).digest();
}

function rawBytes(payload: unknown): Uint8Array | string {
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

function normalizeSecrets(secret: unknown): string[] {
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

function requireHeader(value: HeaderValue, code: 'MISSING_SIGNATURE', header: string): string {
  const single = singleValue(value, 'MALFORMED_SIGNATURE', header);
  const trimmed = typeof single === 'string' ? single.trim() : '';
  if (trimmed === '') throw new WebhookVerificationError(code, `The ${header} header is missing`, { header });
  return trimmed;
}

/** A header sent once; one sent several times is ambiguous, so it is refused. */
function singleValue<T>(value: T | readonly string[], code: 'MALFORMED_SIGNATURE' | 'MALFORMED_TIMESTAMP', header: string): T | string | undefined {
  if (!Array.isArray(value)) return value as T;
  const values = value as readonly string[];
  if (values.length > 1) throw new WebhookVerificationError(code, `The ${header} header was sent more than once`, { header });
  return values[0];
}

function parseTimestamp(header: HeaderValue | number): { seconds: number; text: string } {
  const value = singleValue(header, 'MALFORMED_TIMESTAMP', TIMESTAMP_HEADER);
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    throw new WebhookVerificationError('MISSING_TIMESTAMP', `The ${TIMESTAMP_HEADER} header is missing`, {
      header: TIMESTAMP_HEADER,
    });
  }
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (!DECIMAL_SECONDS.test(text)) {
    throw new WebhookVerificationError(
      'MALFORMED_TIMESTAMP',
      `The ${TIMESTAMP_HEADER} header must be Unix time in whole seconds`,
      { header: TIMESTAMP_HEADER },
    );
  }
  return { seconds: Number(text), text };
}

function checkFreshness(timestamp: number, toleranceSeconds: number, nowMs: number): void {
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
function decodeSignature(signatureHex: string): Buffer {
  if (signatureHex.length === DIGEST_BYTES * 2) {
    const bytes = Buffer.from(signatureHex, 'hex');
    if (bytes.length === DIGEST_BYTES) return bytes;
  }
  if (!HEX_DIGITS.test(signatureHex)) throw malformedSignature(signatureHex);
  const padded = Buffer.alloc(DIGEST_BYTES);
  Buffer.from(signatureHex, 'hex').copy(padded, 0, 0, DIGEST_BYTES);
  return padded;
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

/**
 * Compares the claimed signature with the digest of every secret, always all of them and always
 * over 32 bytes, so neither the length of the claim nor the position of a difference changes
 * the work done.
 */
function findMatchingSecret(
  secrets: readonly string[],
  signatureHex: string,
  claimed: Buffer,
  digest: (key: string) => Buffer,
): number {
  const lengthMatches = signatureHex.length === DIGEST_BYTES * 2;
  let matched = -1;
  for (let i = 0; i < secrets.length; i++) {
    const equal = timingSafeEqual(digest(secrets[i]!), claimed);
    if (equal && lengthMatches && matched === -1) matched = i;
  }
  if (matched === -1) throw mismatch(secrets, signatureHex);
  return matched;
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
