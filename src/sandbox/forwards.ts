import type { DeliveryAttempt } from '../dispatcher/records.js';
import type { SendResult } from '../dispatcher/sender.js';
import type { AttemptErrorKind } from '../ports/dispatch-statuses.js';
import type { SqliteConnection } from '../stores/sqlite/drivers.js';

/** What the fault proxy saw of one attempt at the receiver. */
export interface Forward {
  receiver_ip: string | null;
  response_status: number | null;
  error_kind: AttemptErrorKind | null;
  error_message: string | null;
}

/**
 * `sandbox_forwards`: what the fault proxy saw at the receiver, by registration, event and attempt.
 * The Dispatcher sees only the proxy: its log says `127.0.0.1` for every receiver, and
 * `connection` for a receiver the proxy could not reach (the proxy then drops the Dispatcher's
 * connection). The sandbox shows each attempt with the receiver's side instead: its address,
 * and, when the proxy got no answer, why (`connection`, `timeout`, `dns`, `ssrf` …).
 */
export class ForwardLog {
  constructor(private readonly db: SqliteConnection) {}

  /** The first forward of an attempt is kept (a duplicated attempt is forwarded twice). */
  record(webhookId: string, eventId: string, attemptNumber: number, result: SendResult): void {
    this.db
      .prepare(
        `INSERT INTO sandbox_forwards (webhook_id, event_id, attempt_number, receiver_ip, response_status, error_kind, error_message)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .run(webhookId, eventId, attemptNumber, result.receiver_ip, result.response_status, result.error_kind, result.error_message);
  }

  /** The forwards of one delivery, by attempt number. */
  of(webhookId: string, eventId: string): Map<number, Forward> {
    const rows = this.db
      .prepare('SELECT attempt_number, receiver_ip, response_status, error_kind, error_message FROM sandbox_forwards WHERE webhook_id = ? AND event_id = ?')
      .all(webhookId, eventId) as (Forward & { attempt_number: number })[];
    return new Map(rows.map(({ attempt_number, ...forward }) => [attempt_number, forward]));
  }
}

/**
 * An attempt of the Dispatcher's log with the receiver's side: the receiver's address; and when
 * the proxy got no answer from the receiver, the reason it got none instead of the dropped
 * connection the Dispatcher saw. An answer the receiver gave (relayed, or withheld by a fault)
 * leaves the Dispatcher's account as it is.
 */
export function withForward<A extends Pick<DeliveryAttempt, 'receiver_ip' | 'error_kind' | 'error_message'>>(attempt: A, forward: Forward | undefined): A {
  if (forward === undefined) return attempt;
  const unanswered = forward.response_status === null && forward.error_kind !== null;
  return {
    ...attempt,
    receiver_ip: forward.receiver_ip,
    ...(unanswered && attempt.error_kind === 'connection' ? { error_kind: forward.error_kind, error_message: forward.error_message } : {}),
  };
}
