import { numberAtLeast, optional } from '../kernel/options-check.js';
import { MIN_RETENTION_MS } from './idempotency-store.js';

/** Why a retention under 35 hours is refused; the one reason every store gives. */
export const RETENTION_RULE =
  `must be at least ${MIN_RETENTION_MS} ms (35 hours): the sender retries for 34.6 hours, and a shorter memory would run a redelivered event twice`;

/**
 * The option every idempotency store takes, as a shape for the stores' option checks (zod-free:
 * the memory and SQLite stores are on the receiver's path; postgresStore's zod schema says the
 * same with {@link RETENTION_RULE}).
 */
export const retentionShape = {
  retentionMs: optional(numberAtLeast(MIN_RETENTION_MS, RETENTION_RULE)),
};
