import type { AttemptReport } from '../../dispatcher/attempt-report.js';
import type { LogFn, Logger } from '../../logger.js';

/** One attempt as `dispatcher run` shows it (a line, or a JSON object with --json). */
export interface AttemptView {
  time: number;
  delivery_id: string;
  event_id: string;
  event_type: string;
  webhook_id: string;
  attempt: number;
  manual: boolean;
  /** null without an answer */
  status: number | null;
  ms: number;
  outcome: 'delivered' | 'failed';
  error_kind: string | null;
  delivery_status: string;
  next_attempt_at: string | null;
}

/** The dispatcher's report of an attempt, as the CLI shows it. */
export function attemptView({ attempt, delivery }: AttemptReport): AttemptView {
  return {
    time: Date.parse(attempt.attempted_at),
    delivery_id: attempt.delivery_id,
    event_id: attempt.event_id,
    event_type: attempt.event_type,
    webhook_id: attempt.webhook_id,
    attempt: attempt.attempt_number,
    manual: attempt.manual,
    status: attempt.response_status,
    ms: attempt.response_time_ms,
    outcome: attempt.error_kind === null ? 'delivered' : 'failed',
    error_kind: attempt.error_kind,
    delivery_status: delivery.status,
    next_attempt_at: delivery.next_attempt_at,
  };
}

/**
 * The dispatcher's logger under `dispatcher run`: its errors become notices; the attempt lines
 * do not (the `onAttempt` hook reports those, at every level), nor does anything below error.
 */
export function noticeLogger(notice: (message: string) => void): Logger {
  const quiet: LogFn = () => undefined;
  const logger: Logger = {
    debug: quiet,
    info: quiet,
    warn: quiet,
    error: (fields: object | string, message?: string) => {
      const isAttempt = typeof fields === 'object' && 'delivery_id' in fields;
      if (!isAttempt) notice(typeof fields === 'string' ? fields : (message ?? 'dispatcher error'));
    },
    child: () => logger,
  };
  return logger;
}
