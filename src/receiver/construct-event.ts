import type { WebhookEvent } from '../events/schemas.js';
import { parseEvent } from '../events/parse.js';
import type { HeadersInput } from '../http/headers.js';
import { verifyRequest } from './verify-request.js';
import { DEFAULT_TOLERANCE_SECONDS, nodeHmac, type RawPayload, type WebhookSecret } from '../signing/signature.js';

/** The options of {@link constructEvent}. */
export interface ConstructEventOptions {
  /** How far `x-svc-timestamp` may be from now, either way, in seconds. @default 300 */
  toleranceSeconds?: number;
  /** The current time in milliseconds since the epoch. @default Date.now() */
  now?: number;
  /** Also accept the legacy `x-service-signature` (no replay protection). @default false */
  legacySignature?: boolean;
}

/**
 * Verifies a delivery and parses its event in one call, for code that has its own framework
 * plumbing: the raw body, the request's headers as the framework gives them (node:http and
 * Express `req.headers`, a Fetch `Headers`, or a plain object), and the secret (or a list while
 * rotating). Returns the typed event; throws `WebhookVerificationError` (signature, timestamp)
 * or `WebhookValidationError` (payload). It does not dedupe: handle `event.id` idempotently, or
 * use `createReceiver`, which does.
 *
 * @example
 * app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
 *   const event = constructEvent(req.body, req.headers, process.env.WEBHOOK_SECRET!);
 *   if (event.type === 'invoice.paid') console.log(event.data.object.paid_at);
 *   res.json({ received: true });
 * });
 */
export function constructEvent(
  rawBody: RawPayload,
  headers: HeadersInput,
  secret: WebhookSecret,
  options: ConstructEventOptions = {},
): WebhookEvent {
  const verification = {
    secret,
    toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    legacySignature: options.legacySignature ?? false,
    // The secrets are checked (NO_SECRET) when the request is, after the payload (PAYLOAD_NOT_RAW).
    hmacKeys: nodeHmac(typeof secret === 'string' ? [secret] : secret),
  };
  verifyRequest(rawBody, headers, verification, options.now ?? Date.now());
  return parseEvent(rawBody);
}
