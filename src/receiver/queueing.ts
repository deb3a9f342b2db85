import type { WebhookEvent } from '../events/schemas.js';
import { acknowledged, failed, type WebhookResponse } from './answers.js';
import { toBuffer } from './context.js';
import { ReceiverError } from './errors.js';
import { readHeader, type HeadersInput } from '../http/headers.js';
import type { Inbound } from './inbound.js';
import { aboutEvent } from './outcome.js';
import type { InboxWorker } from './inbox-worker.js';
import type { InboxStore } from '../ports/inbox.js';
import type { OrderingGuard } from './ordering.js';
import type { Finish } from './report.js';

/** The request headers kept with an inbox event: what helps to understand a delivery later, never the signature. */
export const KEPT_HEADERS = ['x-svc-timestamp', 'webhook-id', 'webhook-timestamp', 'content-type', 'user-agent', 'x-correlation-id', 'x-request-id'] as const;

/**
 * Inbox mode's answer to a verified, valid event: store it in the write that dedupes its id,
 * then answer — 200 `queued: true` once it is durable, 200 `duplicate: true` when it was known,
 * 503 when the store failed (nothing was acknowledged, the sender retries).
 */
export function queueing(inbox: InboxStore, ordering: OrderingGuard | undefined, worker: Pick<InboxWorker, 'remember' | 'wake'>, finish: Finish) {
  return async (event: WebhookEvent, inbound: Inbound, headers: HeadersInput | undefined): Promise<WebhookResponse> => {
    const rawBody = toBuffer(inbound.rawBody);
    let result;
    try {
      result = await inbox.enqueue({
        eventId: event.id,
        eventType: event.type,
        created: Date.parse(event.created),
        rawBody,
        headers: headers ? keptHeaders(headers) : {},
        verified: inbound.verified ?? { secretIndex: -1, signatureScheme: 'v1' },
        receivedAt: inbound.receivedAt,
        version: ordering?.versionOf(event) ?? null,
      });
    } catch (error) {
      const unavailable = new ReceiverError('STORE_UNAVAILABLE', 'The inbox is unavailable; retry later', {}, { cause: error });
      return finish(failed(unavailable), inbound, { ...aboutEvent(event), outcome: 'error', code: unavailable.code, error });
    }
    if (result.status === 'queued') worker.remember(event, rawBody);
    if (result.status === 'queued' || result.requeued) worker.wake();
    if (result.status === 'queued') {
      return finish(acknowledged({ id: event.id, type: event.type, duplicate: false, queued: true }), inbound, { ...aboutEvent(event), outcome: 'queued' });
    }
    const requeued = result.requeued ? { queued: true as const } : {};
    return finish(acknowledged({ id: event.id, type: event.type, duplicate: true, ...requeued }), inbound, { ...aboutEvent(event), outcome: 'duplicate', duplicate: true });
  };
}

function keptHeaders(headers: HeadersInput): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = readHeader(headers, name);
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}
