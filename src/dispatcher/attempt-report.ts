import { contained } from '../kernel/contained.js';
import type { Logger } from '../logging/logger.js';
import type { Delivery, DeliveryAttempt } from './records.js';
import type { RecordedAttempt } from '../ports/dispatch-store.js';
import { toAttempt, toDelivery } from './views.js';

/**
 * One attempt, once it is recorded: the delivery log's row and the delivery's state after it
 * (`delivered`, `retrying` with its next attempt, or `finally_failed`). Given to the `onAttempt`
 * hook and written as the one log line per attempt.
 */
export interface AttemptReport {
  attempt: DeliveryAttempt;
  delivery: Delivery;
}

/** Reports each recorded attempt: the log line and the hook, built only when one of them takes it. */
export function attemptReporter(
  logger: Logger,
  logging: boolean,
  onAttempt: ((report: AttemptReport) => void) | undefined,
  metrics: { attempt(report: AttemptReport): void } | null = null,
): (recorded: RecordedAttempt) => void {
  if (!logging && onAttempt === undefined && metrics === null) return () => undefined;
  // Reporting never undoes or fails an attempt: a logger, a meter or a hook that throws is contained here.
  return (recorded) => {
    const report = { attempt: toAttempt(recorded.attempt), delivery: toDelivery(recorded.delivery) };
    if (logging) contained(() => logAttempt(logger, report));
    if (metrics !== null) contained(() => metrics.attempt(report));
    if (onAttempt === undefined) return;
    contained(
      () => onAttempt(report),
      (error) => logger.error({ err: error }, 'The onAttempt hook threw; the attempt is recorded as it was'),
    );
  };
}

/** An attempt in a line's fields: what the log line says, and what `dispatcher run` shows. */
export function attemptSummary({ attempt, delivery }: AttemptReport) {
  return {
    delivery_id: attempt.delivery_id,
    event_id: attempt.event_id,
    event_type: attempt.event_type,
    webhook_id: attempt.webhook_id,
    attempt: attempt.attempt_number,
    manual: attempt.manual,
    test: attempt.test,
    status: attempt.response_status,
    ms: attempt.response_time_ms,
    outcome: attempt.error_kind === null ? ('delivered' as const) : ('failed' as const),
    error_kind: attempt.error_kind,
    delivery_status: delivery.status,
    next_attempt_at: delivery.next_attempt_at,
  };
}

/** One line per attempt: info when delivered, warn when it will be retried, error when it is over. */
function logAttempt(logger: Logger, report: AttemptReport): void {
  const line = attemptSummary(report);
  const { attempt, delivery } = report;
  if (attempt.error_kind === null) logger.info(line, 'webhook delivered');
  else if (delivery.status === 'finally_failed') logger.error(line, 'webhook attempt failed; no attempts left');
  else logger.warn(line, 'webhook attempt failed');
}
