import { bytes, integer, text, time, value, type RecordOf, type StoredOf } from './fields.js';

/** Why a payload was kept: it failed its schema, or its type is one this version does not know. */
export type QuarantineReason = 'invalid_payload' | 'unknown_event_type';

/*
 * The one description of a quarantined payload: the public record (`QuarantinedEvent`), the row
 * each backend keeps and its codecs derive from it. The order is the public record's.
 */
export const QUARANTINE_FIELDS = {
  /** `qev_…` */
  id: value<string>(),
  reason: value<QuarantineReason>(),
  /** The event id from the payload, when it had one. */
  event_id: text<string | null>(),
  /** The event type from the payload, when it had one. */
  event_type: text<string | null>(),
  /** Why it could not be processed: `VALIDATION_ERROR`, `UNKNOWN_EVENT_TYPE`, `INVALID_JSON`, … */
  error_code: text(),
  error_message: text(),
  /** The bytes exactly as received (the signature covered them). */
  raw_body: bytes(),
  first_received_at: time(),
  last_received_at: time(),
  /** How many deliveries brought this payload (the sender retries a 422). */
  deliveries: integer(),
  /** What identifies the payload across deliveries (see quarantine-key.ts); unique. */
  key: text<string, true>({ internal: true }),
} as const;

/** A quarantined payload as a store keeps it: times in ms since the epoch, its key included. */
export type StoredQuarantinedEvent = StoredOf<typeof QUARANTINE_FIELDS>;

/**
 * An authentic payload the receiver could not process, kept with its raw bytes for later. A
 * record, so its fields are spelled like the platform's records (snake_case, ISO 8601 times).
 */
export type QuarantinedEvent = RecordOf<typeof QUARANTINE_FIELDS>;
