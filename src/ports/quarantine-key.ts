import { sha256Hex } from '../kernel/sha256.js';
import type { QuarantineInput } from './idempotency-store.js';

/**
 * A quarantined payload is identified by its event id, or by the hash of its bytes when it has
 * none, so the sender's retries of one bad payload do not pile up as separate entries.
 */
export function quarantineKey(input: Pick<QuarantineInput, 'event_id' | 'raw_body'>): string {
  return input.event_id ?? `sha256:${sha256Hex(input.raw_body)}`;
}
