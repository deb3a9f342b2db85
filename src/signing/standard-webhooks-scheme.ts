import { WebhookVerificationError } from '../kernel/errors.js';
import { checkFreshness, parseTimestampHeader, rawBytes, type HeaderValue, type RawPayload } from './signature-scheme.js';

/*
 * Standard Webhooks without a crypto library: the three headers, the signature list, the secrets'
 * formats, and what is signed. Computing an HMAC and checking an ed25519 signature is left to an
 * engine (node:crypto in standard-webhooks.ts, WebCrypto in web-standard-webhooks.ts). No module
 * here imports anything a Worker lacks.
 *
 * The signed text is `${webhook-id}.${webhook-timestamp}.${body}`. `v1` is the base64 HMAC-SHA256
 * of it keyed with the bytes a `whsec_` secret encodes (base64 after the prefix, not the string
 * itself); `v1a` is the base64 ed25519 signature of it, made with a `whsk_` private key and checked
 * with the `whpk_` public key. The header may carry several, space-separated: any one valid is
 * enough, and versions this package does not know are skipped.
 */

/** The event's id: the same on every attempt, the idempotence key. */
export const WEBHOOK_ID_HEADER = 'webhook-id';
/** The attempt's Unix time in seconds. */
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
/** Space-separated `<version>,<base64>` signatures. */
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/** A symmetric secret: `whsec_` and the base64 of its key bytes. */
export const SYMMETRIC_SECRET_PREFIX = 'whsec_';
/** An ed25519 public key: `whpk_` and the base64 of its 32 bytes. */
export const PUBLIC_KEY_PREFIX = 'whpk_';
/** An ed25519 private key: `whsk_` and the base64 of its 32-byte seed. */
export const PRIVATE_KEY_PREFIX = 'whsk_';

/** The HMAC-SHA256 signature's version. */
export const V1 = 'v1';
/** The ed25519 signature's version. */
export const V1A = 'v1a';

/** At most this many signatures in one header are looked at; a longer list is refused as malformed. */
export const MAX_SIGNATURES = 10;
/** The longest `webhook-id` accepted. */
export const MAX_WEBHOOK_ID_LENGTH = 256;
/** Bytes of an HMAC-SHA256 digest and of an ed25519 key. */
export const KEY_BYTES = 32;
/** Bytes of an ed25519 signature. */
export const ED25519_SIGNATURE_BYTES = 64;
/** The fewest key bytes a `whsec_` secret may encode (the standard's 192 bits). */
export const MIN_SYMMETRIC_KEY_BYTES = 24;

/** A receiver's key, decoded once: an HMAC key, or an ed25519 public key. */
export type VerificationKey = { kind: 'hmac'; bytes: Uint8Array } | { kind: 'ed25519'; bytes: Uint8Array };
/** A sender's key, decoded once: an HMAC key, or an ed25519 private key's seed. */
export type SigningKey = { kind: 'hmac'; bytes: Uint8Array } | { kind: 'ed25519'; seed: Uint8Array };

/** One entry of the signature header. */
export interface ClaimedSignature {
  version: string;
  /** The entry's value as sent (base64). */
  value: string;
}

/** Checks a prepared request under decoded keys: node:crypto's engine answers at once, WebCrypto's with a promise. */
export interface StandardKeyCheck {
  /** The secret index and version of the first key and signature that match; throws `SIGNATURE_MISMATCH`. */
  match(prepared: PreparedStandardVerification): VerifiedStandardWebhook | Promise<VerifiedStandardWebhook>;
}

/** Makes the {@link StandardKeyCheck} of a list of decoded keys, once for them. */
export type StandardKeyEngine = (keys: readonly VerificationKey[]) => StandardKeyCheck;

/** What is checked before any key is used: the headers, the freshness, the bytes signed. */
export interface PreparedStandardVerification {
  id: string;
  timestamp: number;
  /** `${id}.${timestamp}.`, the text before the body. */
  prefix: string;
  body: Uint8Array | string;
  /** The entries of the signature header, every version (unknown ones are skipped when compared). */
  signatures: readonly ClaimedSignature[];
}

/** What a successful verification tells. */
export interface VerifiedStandardWebhook {
  /** Index in the secret list of the secret or public key that matched (0 for a single one). */
  secretIndex: number;
  /** The version of the signature that matched: `v1` or `v1a`. */
  version: 'v1' | 'v1a';
  /** The `webhook-id`, verified. */
  id: string;
  /** The verified timestamp, Unix seconds. */
  timestamp: number;
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const VERSION = /^v[0-9]+[a-z]*$/;
// Printable ASCII without spaces: the id is part of the signed text and of log lines.
const WEBHOOK_ID = /^[\x21-\x7e]+$/;

/**
 * Checks the three headers and the freshness of a Standard Webhooks request, throwing its
 * {@link WebhookVerificationError}; what is left is comparing signatures.
 */
export function prepareStandardVerification(options: {
  payload: RawPayload;
  id: HeaderValue;
  timestamp: HeaderValue | number;
  signature: HeaderValue;
  toleranceSeconds: number;
  now: number;
}): PreparedStandardVerification {
  const body = rawBytes(options.payload);
  const id = webhookId(options.id);
  const timestamp = parseTimestampHeader(options.timestamp, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = parseSignatureHeader(options.signature);
  checkFreshness(timestamp.seconds, options.toleranceSeconds, options.now);
  return { id, timestamp: timestamp.seconds, prefix: `${id}.${timestamp.text}.`, body, signatures };
}

/** The entries of a `webhook-signature` header; throws when it is missing or not a list of `version,value`. */
export function parseSignatureHeader(header: HeaderValue): ClaimedSignature[] {
  const text = singleHeader(header, WEBHOOK_SIGNATURE_HEADER, 'MALFORMED_SIGNATURE')?.trim() ?? '';
  if (text === '') {
    throw new WebhookVerificationError('MISSING_SIGNATURE', `The ${WEBHOOK_SIGNATURE_HEADER} header is missing`, { header: WEBHOOK_SIGNATURE_HEADER });
  }
  const entries = text.split(/[ \t]+/);
  if (entries.length > MAX_SIGNATURES) {
    throw new WebhookVerificationError('MALFORMED_SIGNATURE', `The ${WEBHOOK_SIGNATURE_HEADER} header has more than ${MAX_SIGNATURES} signatures`, {
      header: WEBHOOK_SIGNATURE_HEADER,
      signatures: entries.length,
    });
  }
  return entries.map((entry) => {
    const comma = entry.indexOf(',');
    const version = comma === -1 ? '' : entry.slice(0, comma);
    const value = comma === -1 ? '' : entry.slice(comma + 1);
    if (!VERSION.test(version) || value === '' || !BASE64.test(value)) {
      throw new WebhookVerificationError(
        'MALFORMED_SIGNATURE',
        `Each signature in ${WEBHOOK_SIGNATURE_HEADER} must be <version>,<base64> (v1,… or v1a,…), separated by spaces`,
        { header: WEBHOOK_SIGNATURE_HEADER },
      );
    }
    return { version, value };
  });
}

/**
 * A receiver's secrets decoded: `whsec_…` (or the bare base64 of the key, as the standard's
 * libraries take it) is an HMAC key, `whpk_…` an ed25519 public key. A `whsk_` private key is
 * refused: the receiver verifies with the public one, and the private one never leaves the sender.
 */
export function verificationKeys(secrets: readonly string[]): VerificationKey[] {
  return secrets.map((secret, index) => {
    const which = secrets.length > 1 ? `secret #${index + 1}` : 'the secret';
    if (secret.startsWith(PRIVATE_KEY_PREFIX)) {
      throw new WebhookVerificationError('NO_SECRET', `${which} is a ${PRIVATE_KEY_PREFIX} private key: give the receiver the ${PUBLIC_KEY_PREFIX} public key instead`, {
        secret_index: index,
      });
    }
    if (secret.startsWith(PUBLIC_KEY_PREFIX)) {
      return { kind: 'ed25519', bytes: decodeKey(secret.slice(PUBLIC_KEY_PREFIX.length), which, KEY_BYTES, KEY_BYTES, index) };
    }
    const encoded = secret.startsWith(SYMMETRIC_SECRET_PREFIX) ? secret.slice(SYMMETRIC_SECRET_PREFIX.length) : secret;
    return { kind: 'hmac', bytes: decodeKey(encoded, which, 1, Number.POSITIVE_INFINITY, index) };
  });
}

/** A sender's secrets decoded: `whsec_…` signs `v1`, `whsk_…` signs `v1a`. */
export function signingKeys(secrets: readonly string[]): SigningKey[] {
  return secrets.map((secret, index) => {
    const which = secrets.length > 1 ? `secret #${index + 1}` : 'the secret';
    if (secret.startsWith(PRIVATE_KEY_PREFIX)) {
      // The seed; a 64-byte key (seed and public key, as libsodium writes it) is taken by its seed.
      const bytes = decodeKey(secret.slice(PRIVATE_KEY_PREFIX.length), which, KEY_BYTES, 2 * KEY_BYTES, index);
      if (bytes.byteLength !== KEY_BYTES && bytes.byteLength !== 2 * KEY_BYTES) throw badKey(which, index, `must encode ${KEY_BYTES} bytes`);
      return { kind: 'ed25519', seed: bytes.subarray(0, KEY_BYTES) };
    }
    if (secret.startsWith(PUBLIC_KEY_PREFIX)) throw badKey(which, index, `is a ${PUBLIC_KEY_PREFIX} public key, which cannot sign`);
    const encoded = secret.startsWith(SYMMETRIC_SECRET_PREFIX) ? secret.slice(SYMMETRIC_SECRET_PREFIX.length) : secret;
    return { kind: 'hmac', bytes: decodeKey(encoded, which, 1, Number.POSITIVE_INFINITY, index) };
  });
}

/** Whether a `whsec_` secret's key is written in standard base64, as the standard's libraries read it. */
export function isStandardBase64Secret(secret: string): boolean {
  const encoded = secret.startsWith(SYMMETRIC_SECRET_PREFIX) ? secret.slice(SYMMETRIC_SECRET_PREFIX.length) : secret;
  return encoded.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded);
}

/** Base64 of bytes, standard alphabet with padding (what the standard's signatures and keys use). */
export function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Bytes of base64 text, standard or URL-safe alphabet, padded or not; `undefined` when it is not
 * base64. Whitespace is not allowed.
 */
export function bytesOfBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  const standard = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (standard.length % 4 === 1) return undefined;
  let binary: string;
  try {
    binary = atob(standard + '='.repeat((4 - (standard.length % 4)) % 4));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The message signed: the prefix's bytes and the body's, as one array. */
export function signedMessage(prefix: string, body: Uint8Array | string): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const head = encoder.encode(prefix);
  const tail = typeof body === 'string' ? encoder.encode(body) : body;
  const message = new Uint8Array(head.byteLength + tail.byteLength);
  message.set(head, 0);
  message.set(tail, head.byteLength);
  return message;
}

/** The error of a request none of whose signatures matched. */
export function standardMismatch(prepared: PreparedStandardVerification, keys: readonly VerificationKey[]): WebhookVerificationError {
  const versions = [...new Set(prepared.signatures.map((s) => s.version))];
  const known = versions.filter((v) => v === V1 || v === V1A);
  const hints: string[] = [];
  if (known.length === 0) hints.push(`the header has no ${V1} or ${V1A} signature (only ${versions.join(', ')})`);
  const kinds = new Set(keys.map((key) => key.kind));
  if (known.length > 0 && known.every((v) => v === V1) && !kinds.has('hmac')) hints.push(`the request is signed with ${V1} (HMAC) but only ${PUBLIC_KEY_PREFIX} public keys were given`);
  if (known.length > 0 && known.every((v) => v === V1A) && !kinds.has('ed25519')) hints.push(`the request is signed with ${V1A} (ed25519) but no ${PUBLIC_KEY_PREFIX} public key was given`);
  const tried = keys.length === 1 ? '1 secret' : `${keys.length} secrets`;
  return new WebhookVerificationError(
    'SIGNATURE_MISMATCH',
    `No signature in ${WEBHOOK_SIGNATURE_HEADER} matches the body (tried ${tried}). Check the secret and that the body is the raw, unchanged request body.` +
      (hints.length > 0 ? ` Note: ${hints.join('; ')}.` : ''),
    { secrets_tried: keys.length, signatures: prepared.signatures.length, versions, hints },
  );
}

function webhookId(header: HeaderValue): string {
  const value = singleHeader(header, WEBHOOK_ID_HEADER, 'MALFORMED_WEBHOOK_ID')?.trim() ?? '';
  if (value === '') throw new WebhookVerificationError('MISSING_WEBHOOK_ID', `The ${WEBHOOK_ID_HEADER} header is missing`, { header: WEBHOOK_ID_HEADER });
  if (value.length > MAX_WEBHOOK_ID_LENGTH || !WEBHOOK_ID.test(value)) {
    throw new WebhookVerificationError('MALFORMED_WEBHOOK_ID', `The ${WEBHOOK_ID_HEADER} header must be at most ${MAX_WEBHOOK_ID_LENGTH} printable ASCII characters without spaces`, {
      header: WEBHOOK_ID_HEADER,
      length: value.length,
    });
  }
  return value;
}

function singleHeader(value: HeaderValue, header: string, code: 'MALFORMED_SIGNATURE' | 'MALFORMED_WEBHOOK_ID'): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (value.length > 1) throw new WebhookVerificationError(code, `The ${header} header was sent more than once`, { header });
  return value[0];
}

function decodeKey(encoded: string, which: string, min: number, max: number, index: number): Uint8Array {
  const bytes = bytesOfBase64(encoded);
  if (bytes === undefined || bytes.byteLength === 0) throw badKey(which, index, 'is not base64 after its prefix');
  if (bytes.byteLength < min || bytes.byteLength > max) {
    throw badKey(which, index, min === max ? `must encode ${min} bytes, not ${bytes.byteLength}` : `must encode ${min} to ${max} bytes, not ${bytes.byteLength}`);
  }
  return bytes;
}

function badKey(which: string, index: number, reason: string): WebhookVerificationError {
  return new WebhookVerificationError('NO_SECRET', `${which} ${reason}`, { secret_index: index });
}
