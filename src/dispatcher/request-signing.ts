import { signPayload } from '../signing/signature.js';
import { standardSignatures } from '../signing/standard-webhooks.js';
import { WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, signingKeys } from '../signing/standard-webhooks-scheme.js';
import type { DeliveryJob } from '../ports/dispatch-store.js';

/** During a rotation's grace, the new secret's `x-svc-signature` (the header itself keeps the previous secret's). */
export const NEXT_SIGNATURE_HEADER = 'x-svc-signature-next';

/**
 * The signature headers of one attempt, by the registration's scheme. `signedAt` (ms) gives the
 * timestamps; `now` (ms, the dispatcher's clock) decides whether a rotation's grace is still on.
 *
 * During a grace, Standard Webhooks' `webhook-signature` lists the new secret's signature and the
 * previous one's. The platform's `x-svc-signature` holds one signature, which receivers compare
 * whole, so it keeps the previous secret's, the one every receiver in place has, until the grace
 * ends; `x-svc-signature-next` carries the new secret's beside it, for receivers that switched
 * early (this package's receiver reads both).
 */
export function signatureHeaders(webhook: DeliveryJob['webhook'], eventId: string, payload: string | Buffer, signedAt: number, now: number): Record<string, string> {
  const seconds = Math.floor(signedAt / 1000);
  const previous = webhook.previous_secret !== null && webhook.previous_secret_expires_at !== null && webhook.previous_secret_expires_at > now ? webhook.previous_secret : null;
  const headers: Record<string, string> = {};
  if (webhook.scheme !== 'standard-webhooks') {
    const signed = signPayload({ payload, secret: previous ?? webhook.secret, timestamp: seconds });
    Object.assign(headers, signed.headers);
    if (previous !== null) headers[NEXT_SIGNATURE_HEADER] = signPayload({ payload, secret: webhook.secret, timestamp: seconds }).signature;
  }
  if (webhook.scheme !== 'svc') {
    const keys = signingKeys(previous === null ? [webhook.secret] : [webhook.secret, previous]);
    headers[WEBHOOK_ID_HEADER] = eventId;
    headers[WEBHOOK_TIMESTAMP_HEADER] = String(seconds);
    headers[WEBHOOK_SIGNATURE_HEADER] = standardSignatures(keys, `${eventId}.${seconds}.`, payload);
  }
  return headers;
}
