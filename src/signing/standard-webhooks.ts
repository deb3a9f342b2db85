import { createHmac, createPrivateKey, createPublicKey, createSecretKey, generateKeyPairSync, sign, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { normalizeSecrets, rawBytes, signingTimestamp, DEFAULT_TOLERANCE_SECONDS, type HeaderValue, type RawPayload, type WebhookSecret } from './signature-scheme.js';
import {
  ED25519_SIGNATURE_BYTES,
  KEY_BYTES,
  PRIVATE_KEY_PREFIX,
  PUBLIC_KEY_PREFIX,
  V1,
  V1A,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  prepareStandardVerification,
  signingKeys,
  standardMismatch,
  verificationKeys,
  type PreparedStandardVerification,
  type SigningKey,
  type StandardKeyCheck,
  type VerificationKey,
  type VerifiedStandardWebhook,
} from './standard-webhooks-scheme.js';

/*
 * Standard Webhooks on Node.js with node:crypto: HMAC-SHA256 for `v1`, ed25519 (`crypto.sign` and
 * `crypto.verify` with a null digest, RFC 8032's pure Ed25519) for `v1a`. Keys are imported into
 * KeyObjects once per list and reused.
 */

export type { VerifiedStandardWebhook } from './standard-webhooks-scheme.js';

/** What {@link signStandardWebhook} signs. */
export interface SignStandardWebhookOptions {
  /** The `webhook-id`: the event's id, the same on every attempt. */
  id: string;
  payload: RawPayload;
  /** `whsec_…` signs `v1`, `whsk_…` signs `v1a`; a list signs with each (during a rotation's grace). */
  secret: WebhookSecret;
  /** Unix time in seconds. @default the current time */
  timestamp?: number;
}

/** The three headers of a Standard Webhooks request, and the signature list on its own. */
export interface SignedStandardWebhook {
  signature: string;
  timestamp: number;
  headers: { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };
}

/** What {@link verifyStandardWebhook} checks: the raw body, the three headers as received, the secrets. */
export interface VerifyStandardWebhookOptions {
  payload: RawPayload;
  /** The `webhook-id` header value. */
  id: HeaderValue;
  /** The `webhook-timestamp` header value (Unix seconds). */
  timestamp: HeaderValue | number;
  /** The `webhook-signature` header value: space-separated `v1,…` / `v1a,…`. */
  signature: HeaderValue;
  /** `whsec_…` (HMAC, `v1`) or `whpk_…` (ed25519 public key, `v1a`), or a list of them. */
  secret: WebhookSecret;
  /** @default 300 */
  toleranceSeconds?: number;
  /** The current time in milliseconds since the epoch. @default Date.now() */
  now?: number;
}

/** An ed25519 key pair in the standard's text forms. */
export interface SigningKeyPair {
  /** `whsk_` and the base64 of the 32-byte seed: the sender's, never shown to a receiver. */
  privateKey: string;
  /** `whpk_` and the base64 of the 32-byte public key: what the receiver verifies with. */
  publicKey: string;
}

// The DER framing of a bare ed25519 key (RFC 8410): PKCS#8 for the seed, SPKI for the public key.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * A new ed25519 key pair for `v1a` signatures, from node:crypto.
 *
 * @example
 * const { privateKey, publicKey } = generateSigningKeyPair();   // 'whsk_…', 'whpk_…'
 */
export function generateSigningKeyPair(): SigningKeyPair {
  const pair = generateKeyPairSync('ed25519');
  const seed = pair.privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-KEY_BYTES);
  const publicKey = pair.publicKey.export({ format: 'der', type: 'spki' }).subarray(-KEY_BYTES);
  return { privateKey: `${PRIVATE_KEY_PREFIX}${seed.toString('base64')}`, publicKey: `${PUBLIC_KEY_PREFIX}${publicKey.toString('base64')}` };
}

/** The `whpk_` public key of a `whsk_` private key. */
export function publicKeyOf(privateKey: string): string {
  const [key] = signingKeys([privateKey]);
  if (key?.kind !== 'ed25519') throw new TypeError('not a whsk_ private key');
  const exported = createPublicKey(privateKeyObject(key.seed)).export({ format: 'der', type: 'spki' }).subarray(-KEY_BYTES);
  return `${PUBLIC_KEY_PREFIX}${exported.toString('base64')}`;
}

/**
 * Signs a payload the Standard Webhooks way: `webhook-signature` holds one `v1,…` or `v1a,…` per
 * secret, space-separated, in the order given.
 *
 * @example
 * const { headers } = signStandardWebhook({ id: event.id, payload: body, secret: 'whsec_…' });
 */
export function signStandardWebhook(options: SignStandardWebhookOptions): SignedStandardWebhook {
  const bytes = rawBytes(options.payload);
  const keys = signingKeys(normalizeSecrets(options.secret));
  const seconds = signingTimestamp(options.timestamp);
  const signature = standardSignatures(keys, `${options.id}.${seconds}.`, bytes);
  return {
    signature,
    timestamp: seconds,
    headers: { [WEBHOOK_ID_HEADER]: options.id, [WEBHOOK_TIMESTAMP_HEADER]: String(seconds), [WEBHOOK_SIGNATURE_HEADER]: signature },
  };
}

/** The signature list of a message under decoded keys (the dispatcher's per-attempt call). */
export function standardSignatures(keys: readonly SigningKey[], prefix: string, body: Uint8Array | string): string {
  const parts: string[] = [];
  for (const key of keys) {
    if (key.kind === 'hmac') parts.push(`${V1},${createHmac('sha256', key.bytes).update(prefix).update(body).digest('base64')}`);
    else parts.push(`${V1A},${sign(null, message(prefix, body), privateKeyObject(key.seed)).toString('base64')}`);
  }
  return parts.join(' ');
}

/**
 * Verifies a Standard Webhooks request: the id, the timestamp within the tolerance, and any one
 * `v1` or `v1a` signature valid under any of the secrets (unknown versions are skipped). Throws a
 * {@link WebhookVerificationError} with a stable `code`; HMACs are compared in constant time.
 *
 * @example
 * const { id, secretIndex } = verifyStandardWebhook({
 *   payload: rawBody,
 *   id: headers['webhook-id'],
 *   timestamp: headers['webhook-timestamp'],
 *   signature: headers['webhook-signature'],
 *   secret: process.env.WEBHOOK_SECRET!,
 * });
 */
export function verifyStandardWebhook(options: VerifyStandardWebhookOptions): VerifiedStandardWebhook {
  const prepared = prepareStandardVerification({
    payload: options.payload,
    id: options.id,
    timestamp: options.timestamp,
    signature: options.signature,
    toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    now: options.now ?? Date.now(),
  });
  return cachedKeys(normalizeSecrets(options.secret)).match(prepared);
}

/** Keys decoded and imported once, that check a prepared request: the receiver's engine on Node.js. */
export interface StandardKeys extends StandardKeyCheck {
  /** The secret index and version of the first key and signature that match; throws `SIGNATURE_MISMATCH`. */
  match(prepared: PreparedStandardVerification): VerifiedStandardWebhook;
}

/** node:crypto's engine for decoded verification keys. */
export const nodeStandardKeys = (keys: readonly VerificationKey[]): StandardKeys => {
  // HMAC keys as KeyObjects and ed25519 keys imported once: nothing is decoded per request.
  const imported = keys.map((key) => (key.kind === 'hmac' ? { kind: 'hmac' as const, key: createSecretKey(key.bytes) } : { kind: 'ed25519' as const, key: publicKeyObject(key.bytes) }));
  return {
    match(prepared) {
      // Each key's HMAC is computed once, when the first v1 claim needs it.
      const hmacs: (Buffer | undefined)[] = [];
      let signed: Uint8Array | undefined;
      let matchedIndex = -1;
      let matchedVersion: 'v1' | 'v1a' = V1;
      for (const claim of prepared.signatures) {
        if (claim.version !== V1 && claim.version !== V1A) continue;
        const bytes = Buffer.from(claim.value, 'base64');
        for (let i = 0; i < imported.length; i++) {
          const key = imported[i]!;
          if (claim.version === V1 && key.kind === 'hmac') {
            const digest = (hmacs[i] ??= createHmac('sha256', key.key).update(prepared.prefix).update(prepared.body).digest());
            // Every v1 claim is compared with every HMAC key over 32 bytes: no early exit.
            const same = bytes.byteLength === KEY_BYTES && timingSafeEqual(digest, bytes);
            if (same && matchedIndex === -1) matchedIndex = i;
          } else if (claim.version === V1A && key.kind === 'ed25519' && matchedIndex === -1 && bytes.byteLength === ED25519_SIGNATURE_BYTES) {
            signed ??= message(prepared.prefix, prepared.body);
            if (verify(null, signed, key.key, bytes)) {
              matchedIndex = i;
              matchedVersion = V1A;
            }
          }
        }
      }
      if (matchedIndex === -1) throw standardMismatch(prepared, keys);
      return { secretIndex: matchedIndex, version: matchedVersion, id: prepared.id, timestamp: prepared.timestamp };
    },
  };
};

function message(prefix: string, body: Uint8Array | string): Buffer {
  return Buffer.concat([Buffer.from(prefix, 'utf8'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

function privateKeyObject(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

function publicKeyObject(bytes: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, bytes]), format: 'der', type: 'spki' });
}

/** Decoded keys of the last few secret lists verified, so that a call per request does not import keys each time. */
const KEY_CACHE = new Map<string, StandardKeys>();
const KEY_CACHE_SIZE = 16;

function cachedKeys(secrets: readonly string[]): StandardKeys {
  const cacheKey = secrets.join('\n');
  const hit = KEY_CACHE.get(cacheKey);
  if (hit) return hit;
  const keys = nodeStandardKeys(verificationKeys(secrets));
  if (KEY_CACHE.size >= KEY_CACHE_SIZE) KEY_CACHE.delete(KEY_CACHE.keys().next().value!);
  KEY_CACHE.set(cacheKey, keys);
  return keys;
}
