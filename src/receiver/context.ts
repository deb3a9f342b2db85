import type { Logger } from 'pino';

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
}
