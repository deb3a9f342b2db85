import { randomBytes } from 'node:crypto';
import { SECRET_PREFIX } from '../signing/signature.js';
import { generateSigningKeyPair } from '../signing/standard-webhooks.js';
import type { SigningAlgorithm } from '../ports/dispatch-statuses.js';

/** Random bytes in a webhook secret: 256 bits, as strong as the HMAC-SHA256 key can use. */
export const SECRET_BYTES = 32;

/**
 * A new signing secret: `whsec_` and 32 random bytes in standard base64 (44 characters, one `=`).
 * Both schemes read it: the platform's keys its HMAC with the whole string, Standard Webhooks'
 * libraries with the bytes the base64 after `whsec_` encodes.
 */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** What a registration signs with, and what its receiver verifies with. */
export interface IssuedSecret {
  /** Kept by the dispatcher: the `whsec_` secret, or the `whsk_` private key. */
  signing: string;
  /** The `whpk_` public key for ed25519; `null` for HMAC. */
  publicKey: string | null;
  /** What the receiver is given: the `whsec_` secret, or the `whpk_` public key. */
  receiver: string;
}

/** A new secret, or a new ed25519 key pair. */
export function issueSecret(algorithm: SigningAlgorithm): IssuedSecret {
  if (algorithm === 'hmac-sha256') {
    const secret = newSecret();
    return { signing: secret, publicKey: null, receiver: secret };
  }
  const pair = generateSigningKeyPair();
  return { signing: pair.privateKey, publicKey: pair.publicKey, receiver: pair.publicKey };
}
