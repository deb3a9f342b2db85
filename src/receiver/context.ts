import type { Logger } from 'pino';
import type { AtomicEffect } from '../store/types.js';

/** What a handler gets besides the event. */
export interface HandlerContext {
  /** A pino child logger bound to `eventId`, `type` and `correlationId`. */
  readonly log: Logger;
  /**
   * Fires when the handler budget (`handlerTimeoutMs`, 25 s by default) runs out; the receiver
   * then answers 503 and the sender retries. Pass it on to fetch, database drivers and timers
   * so the work stops instead of finishing behind the retry.
   */
  readonly signal: AbortSignal;
  /** Which secret verified the request: its index in the `secret` list (0 for a single secret). */
  readonly secretIndex: number;
  /** `'v1'` for `x-svc-signature`, `'legacy'` for `x-service-signature` (opt-in). */
  readonly signatureScheme: 'v1' | 'legacy';
  /** When this delivery attempt arrived (from the receiver's clock). */
  readonly receivedAt: Date;
  /**
   * Registers a write to the store's own SQLite database that commits in the same transaction
   * as "this event is handled", after every handler succeeded: both happen, or neither. A process
   * killed between a side effect and its completion record can then never cause the effect to be
   * repeated by the redelivery. Synchronous; needs a store that offers it (`sqliteStore`).
   *
   * @example
   * hooks.on('invoice.paid', (event, { atomic }) => {
   *   atomic((db) => db.prepare('UPDATE invoices SET paid = 1 WHERE id = ?').run(event.data.object.id));
   * });
   */
  readonly atomic: (effect: AtomicEffect) => void;
}
