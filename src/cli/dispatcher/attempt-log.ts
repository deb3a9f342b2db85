import { pino, type Logger } from 'pino';

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

const ERROR_LEVEL = 50;

/**
 * A pino logger for the dispatcher whose lines go to `listener` as records instead of being
 * printed: `dispatcher run` shows attempts its own way, with no extra API in the dispatcher.
 */
export function attemptLogger(listener: AttemptLogListener): Logger {
  return pino({ level: 'info' }, { write: (line: string) => dispatch(line, listener) });
}

function dispatch(line: string, listener: AttemptLogListener): void {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  // The dispatcher's own line per attempt (logAttempt): recognised by its fields, read as written.
  if (typeof record.delivery_id === 'string' && typeof record.attempt === 'number') listener.attempt(record as unknown as LoggedAttempt);
  else if (typeof record.level === 'number' && record.level >= ERROR_LEVEL) listener.notice(typeof record.msg === 'string' ? record.msg : 'dispatcher error');
}
