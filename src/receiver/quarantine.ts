import { WebhookValidationError } from '../kernel/errors.js';
import type { RawPayload } from '../signing/signature-scheme.js';
import type { IdempotencyStore, QuarantineInput } from '../ports/idempotency-store.js';
import { acknowledged, failed, type WebhookResponse } from './answers.js';
import { ReceiverError } from './errors.js';
import { toBuffer } from './context.js';
import { utf8Text } from '../kernel/bytes.js';
import type { OutcomeFields } from './outcome.js';

/** What the quarantine uses: the store that keeps the payload, and how an unknown type is answered. */
export interface QuarantineSettings {
  store: Pick<IdempotencyStore, 'quarantine'>;
  onUnknownEvent: 'acknowledge' | 'reject';
}

interface QuarantineResult {
  response: WebhookResponse;
  fields: OutcomeFields;
}

/**
 * An authentic payload that cannot be processed is kept, raw bytes and reason, so nothing the
 * platform sent is lost: an invalid one is answered 422 (VALIDATION_ERROR), an unknown type is
 * acknowledged (or answered 422 with `onUnknownEvent: 'reject'`). If it cannot be stored, the
 * answer is 503 and the sender retries.
 */
export async function quarantine(
  settings: QuarantineSettings,
  rawBody: RawPayload,
  error: WebhookValidationError,
  receivedAt: number,
): Promise<QuarantineResult> {
  const bytes = toBuffer(rawBody);
  const unknownType = error.code === 'UNKNOWN_EVENT_TYPE';
  const { eventId, type } = identify(bytes, error);
  const input: QuarantineInput = {
    reason: unknownType ? 'unknown_event_type' : 'invalid_payload',
    event_id: eventId,
    event_type: type,
    error_code: error.code,
    error_message: error.message,
    raw_body: bytes,
    received_at: receivedAt,
  };
  const about = { ...(eventId ? { eventId } : {}), ...(type ? { type } : {}) };
  try {
    await settings.store.quarantine.put(input);
  } catch (storeError) {
    const unavailable = new ReceiverError('STORE_UNAVAILABLE', 'Could not keep the payload for later; retry later', {}, { cause: storeError });
    return { response: failed(unavailable), fields: { ...about, outcome: 'error', code: unavailable.code, error: storeError } };
  }
  if (unknownType && settings.onUnknownEvent === 'acknowledge') {
    return {
      response: acknowledged({ id: eventId ?? '', type: type ?? '', duplicate: false, acknowledged: 'unknown_event_type' }),
      fields: { ...about, outcome: 'unknown_event_type', code: error.code },
    };
  }
  return { response: failed(asValidationError(error)), fields: { ...about, outcome: 'quarantined', code: error.code, reason: error.message } };
}

/** On the wire every unusable payload is the platform's VALIDATION_ERROR with `field` and `reason`. */
function asValidationError(error: WebhookValidationError): WebhookValidationError {
  if (error.code === 'VALIDATION_ERROR') return error;
  return new WebhookValidationError('VALIDATION_ERROR', error.message, error.issues, { kind: error.code });
}

function identify(bytes: Buffer, error: WebhookValidationError): { eventId: string | null; type: string | null } {
  const fromError = { eventId: stringOrNull(error.details.event_id), type: stringOrNull(error.details.type) };
  if (fromError.eventId) return fromError;
  try {
    const value = JSON.parse(utf8Text(bytes)) as { id?: unknown; type?: unknown } | null;
    return { eventId: stringOrNull(value?.id), type: stringOrNull(value?.type) };
  } catch {
    return { eventId: null, type: null };
  }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : null;
}
