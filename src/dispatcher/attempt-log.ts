import type { Logger } from '../logger.js';
import type { RecordedAttempt } from './store.js';

/** One line per attempt: info when delivered, warn when it will be retried, error when it is over. */
export function logAttempt(logger: Logger, { attempt, delivery }: RecordedAttempt): void {
  const line = {
    delivery_id: attempt.delivery_id,
    event_id: attempt.event_id,
    event_type: attempt.event_type,
    webhook_id: attempt.webhook_id,
    attempt: attempt.attempt_number,
    manual: attempt.manual,
    test: attempt.test,
    status: attempt.response_status,
    ms: attempt.response_time_ms,
    outcome: attempt.error_kind === null ? 'delivered' : 'failed',
    error_kind: attempt.error_kind,
    delivery_status: delivery.status,
    next_attempt_at: delivery.next_attempt_at === null ? null : new Date(delivery.next_attempt_at).toISOString(),
  };
  if (attempt.error_kind === null) logger.info(line, 'webhook delivered');
  else if (delivery.status === 'finally_failed') logger.error(line, 'webhook attempt failed; no attempts left');
  else logger.warn(line, 'webhook attempt failed');
}
