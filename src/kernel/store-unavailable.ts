import { AcctWebhookError } from './errors.js';

/**
 * A store failed under an operation: the database away, or its connection ended (a terminated
 * backend, a restart, a dropped socket). Nothing of the operation can be relied on as stored, nor
 * as not stored: an `emit` that rejects with it may have committed just before the connection
 * broke, and emitting the same event again (same id) is safe, a repeat queues nothing new. The
 * store's own error is the `cause`. The receiver answers it `503 STORE_UNAVAILABLE`.
 */
export class StoreUnavailableError extends AcctWebhookError<'STORE_UNAVAILABLE'> {
  constructor(cause: unknown) {
    super('STORE_UNAVAILABLE', `The store is unavailable; retry later (${cause instanceof Error ? cause.message : String(cause)})`, {}, { cause });
  }
}

/** A store's failure as it is reported: this package's own errors as they are, anything else a {@link StoreUnavailableError}. */
export function storeFailure(error: unknown): AcctWebhookError {
  return error instanceof AcctWebhookError ? (error as AcctWebhookError) : new StoreUnavailableError(error);
}
