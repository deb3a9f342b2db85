import type { WebhookEvent } from '../../events/schemas.js';
import { CliError } from '../errors.js';
import { isDelivered, sendSigned } from '../send.js';

/**
 * Under the receiver's handler budget (25 s), so that a slow app makes the forward fail and the
 * answer 500 — the sender retries — instead of the handler running out of time.
 */
export const FORWARD_TIMEOUT_MS = 20_000;

export interface ForwardTarget {
  url: string;
  secret: string;
  userAgent: string;
}

/**
 * Sends the event's exact bytes to the app, signed anew with the same secret and a fresh
 * timestamp, and says how it went. Anything but 2xx throws, so the sender retries.
 */
export async function forwardEvent(target: ForwardTarget, event: WebhookEvent, rawBody: Buffer): Promise<string> {
  const result = await sendSigned({ url: target.url, body: rawBody, secret: target.secret, userAgent: target.userAgent, timeoutMs: FORWARD_TIMEOUT_MS });
  if (!isDelivered(result.status)) {
    throw new CliError('DELIVERY_FAILED', `forwarded to ${target.url}: your app answered ${result.status}; the sender will retry`, {
      url: target.url,
      status: result.status,
      eventId: event.id,
    });
  }
  return `forwarded to ${target.url}: ${result.status} in ${result.ms} ms`;
}
