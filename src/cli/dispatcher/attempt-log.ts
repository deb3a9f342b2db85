import type { LogFn, Logger } from '../../logger.js';

/** One attempt as the dispatcher logs it (one line per attempt). */
export interface LoggedAttempt {
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

export interface AttemptLogListener {
  attempt(attempt: LoggedAttempt): void;
  notice(message: string): void;
}

/**
 * A logger for the dispatcher whose lines go to `listener` as records instead of being printed:
 * `dispatcher run` shows attempts its own way, with no extra API in the dispatcher. The
 * dispatcher's line per attempt (logAttempt) is recognised by its fields; anything else at error
 * level is a notice; the rest is not shown.
 */
export function attemptLogger(listener: AttemptLogListener): Logger {
  const quiet: LogFn = () => undefined;
  const logger: Logger = {
    debug: quiet,
    info: (fields: object | string) => attempt(fields, listener),
    warn: (fields: object | string) => attempt(fields, listener),
    error: (fields: object | string, message?: string) => {
      if (!attempt(fields, listener)) listener.notice(typeof fields === 'string' ? fields : (message ?? 'dispatcher error'));
    },
    child: () => logger,
  };
  return logger;
}

/** Hands the dispatcher's line of an attempt to the listener; false for any other line. */
function attempt(fields: object | string, listener: AttemptLogListener): boolean {
  if (typeof fields !== 'object') return false;
  const record = fields as Record<string, unknown>;
  if (typeof record.delivery_id !== 'string' || typeof record.attempt !== 'number') return false;
  listener.attempt({ ...(record as Omit<LoggedAttempt, 'time'>), time: Date.now() });
  return true;
}
