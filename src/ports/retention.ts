/**
 * The dispatcher's delivery log retention, shared by both backends: what replaces a removed
 * payload, and how much one statement prunes.
 */

/**
 * What an event's payload and an attempt's response body become once they are no longer kept
 * (`payloadRetentionMs`, or an erase by business): not JSON, so it never equals a real payload.
 * The dashboard, manual retries and `replay` recognise it and say "payload no longer kept".
 */
export const PAYLOAD_REMOVED = '[payload no longer kept]';

/** Rows one pruning statement touches at most: short transactions, no long-held snapshot. */
export const RETENTION_BATCH_SIZE = 500;

/** What an erase by business changed. */
export interface BusinessErasure {
  /** Events whose payload was replaced by the marker. */
  events: number;
  /** Attempts whose response body was replaced by the marker. */
  attempts: number;
  /** Deliveries still retrying that were ended (`finally_failed`): nothing is left to send. */
  deliveriesEnded: number;
  /**
   * Registrations of the business (`business_id`) deleted, their secrets and custom header values
   * removed (header names stay, values become `PAYLOAD_REMOVED`). Platform-wide ones stay.
   */
  webhooks: number;
}

/** True for a payload or response body that was removed. */
export function payloadRemoved(text: string | null | undefined): boolean {
  return text === PAYLOAD_REMOVED;
}

/** The `business_id` of an event's payload, kept beside it for an erase by business; null when it has none. */
export function businessOf(payload: string): string | null {
  try {
    const business = (JSON.parse(payload) as { business_id?: unknown }).business_id;
    return typeof business === 'string' ? business : null;
  } catch {
    return null;
  }
}
