import { z } from 'zod';
import { MIN_RETENTION_MS } from './idempotency-store.js';

const RETENTION_RULE =
  `must be at least ${MIN_RETENTION_MS} ms (35 hours): the sender retries for 34.6 hours, and a shorter memory would run a redelivered event twice`;

/** The option every idempotency store takes, as a zod shape for the stores' option schemas. */
export const retentionShape = {
  retentionMs: z
    .number({ error: RETENTION_RULE })
    .min(MIN_RETENTION_MS, { error: RETENTION_RULE })
    .max(Number.MAX_SAFE_INTEGER, { error: RETENTION_RULE })
    .optional(),
};
