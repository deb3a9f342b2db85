import { pino, type Logger } from 'pino';
import type { RecordedAttempt } from './storage.js';

/**
 * Paths blanked in the default logger's output. The dispatcher never logs secrets, signatures
 * or custom header values (they often carry credentials); this is the second line of defence.
 */
const REDACTED_PATHS = [
  'secret',
  '*.secret',
  'signature',
  '*.signature',
  'headers',
  '*.headers',
  '"x-svc-signature"',
  '*["x-svc-signature"]',
];

/**
 * The logger the dispatcher writes to: `false` → silent; a pino logger → a child of it;
 * nothing → pino at `info` to stderr.
 */
export function createLogger(option: Logger | false | undefined): Logger {
  if (option === false) return pino({ enabled: false });
  if (option !== undefined) return option.child({ component: 'acct-webhook-dispatcher' });
  return pino(
    { name: 'acct-webhook-dispatcher', level: 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    pino.destination(2),
  );
}

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
