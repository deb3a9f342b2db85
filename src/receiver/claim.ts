import type { WebhookEvent } from '../events/schemas.js';
import type { Logger } from '../logging/logger.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import type { ObjectVersion } from '../ports/versions.js';
import { acknowledged, acknowledgedEvent, failed, type WebhookResponse } from './answers.js';
import { ReceiverError } from './errors.js';
import type { Inbound } from './inbound.js';
import type { OrderingGuard } from './ordering.js';
import { aboutEvent } from './outcome.js';
import type { Reporter } from './report.js';

/** What the claim step uses: the store, the lease, the ordering guard and the report. */
export interface ClaimSettings {
  store: Pick<IdempotencyStore, 'claim' | 'complete' | 'versions'>;
  clock: () => number;
  /** The claim's lease: the handler budget and a margin. */
  leaseMs: number;
  ordering: OrderingGuard | undefined;
  /** Where a stale event that could not be recorded as handled is logged. */
  logger: Logger;
  report: Reporter;
}

/** A claim this delivery holds: its token, and what the ordering guard says of the event. */
export interface Claimed {
  token: string;
  stale: boolean;
  version: ObjectVersion | undefined;
}

/**
 * Direct mode's claim step: takes the event's claim in the store and asks the ordering guard.
 * Resolves with the claim when the handlers are to run, or with the answer when they are not: a
 * duplicate (200), another delivery holding it (409), a store that failed (503), a stale event
 * skipped (200 `stale: true`, recorded as handled so its redeliveries are duplicates).
 */
export async function claimEvent(settings: ClaimSettings, event: WebhookEvent, inbound: Inbound): Promise<Claimed | WebhookResponse> {
  const { store, clock, report } = settings;
  let claim;
  try {
    claim = await store.claim(event.id, { now: clock(), leaseMs: settings.leaseMs, type: event.type });
  } catch (error) {
    const unavailable = new ReceiverError('STORE_UNAVAILABLE', 'The idempotency store is unavailable; retry later', {}, { cause: error });
    return report.finish(failed(unavailable), inbound, { ...aboutEvent(event), outcome: 'error', code: unavailable.code, error });
  }
  if (claim.status === 'completed') {
    const response = acknowledgedEvent(event, true);
    return report.reporting ? report.finish(response, inbound, { ...aboutEvent(event), outcome: 'duplicate', duplicate: true }) : response;
  }
  if (claim.status === 'in_progress') {
    const retryAfter = Math.max(1, Math.ceil((claim.leaseExpiresAt - clock()) / 1000));
    const error = new ReceiverError('EVENT_IN_PROGRESS', 'This event is being handled by another delivery right now; retry later', {
      event_id: event.id,
      retry_after: retryAfter,
    });
    return report.finish(failed(error, { 'retry-after': String(retryAfter) }), inbound, { ...aboutEvent(event), outcome: 'in_progress', code: error.code });
  }
  // Without the guard nothing is awaited here: the direct hot path stays as it was.
  if (!settings.ordering) return { token: claim.token, stale: false, version: undefined };
  const version = settings.ordering.versionOf(event);
  if (!version || !store.versions) return { token: claim.token, stale: false, version: undefined };
  const verdict = settings.ordering.decide(event, version, await store.versions.newest(version.key));
  if (verdict === 'skip') return await skipStale(settings, event, claim.token, inbound);
  return { token: claim.token, stale: verdict === 'run_stale', version };
}

/** Whether the claim step handed over a claim (else it answered). */
export function isClaimed(result: Claimed | WebhookResponse): result is Claimed {
  return 'token' in result;
}

// A stale event is acknowledged and recorded as handled, so its redeliveries are duplicates.
async function skipStale({ store, clock, logger, report }: ClaimSettings, event: WebhookEvent, token: string, inbound: Inbound): Promise<WebhookResponse> {
  await store.complete(event.id, token, clock()).catch((error: unknown) => logger.error({ eventId: event.id, err: error }, 'Could not record the event as handled'));
  return report.finish(acknowledged({ id: event.id, type: event.type, duplicate: false, stale: true }), inbound, { ...aboutEvent(event), outcome: 'stale', stale: true });
}
