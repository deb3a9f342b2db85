import { randomBytes } from 'node:crypto';
import { SECRET_PREFIX } from '../signing/signature.js';

/** Random bytes in a webhook secret: 256 bits, as strong as the HMAC-SHA256 key can use. */
export const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` and 32 random bytes, base64url (43 characters). */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`;
}
