import { attemptSummary, type AttemptReport } from '../../dispatcher/attempt-report.js';
import type { LogFn, Logger } from '../../logging/logger.js';

/** One attempt as `dispatcher run` shows it (a line, or a JSON object with --json): the log line's fields and the time. */
export type AttemptView = ReturnType<typeof attemptSummary> & { time: number };

/** The dispatcher's report of an attempt, as the CLI shows it. */
export function attemptView(report: AttemptReport): AttemptView {
  return { time: Date.parse(report.attempt.attempted_at), ...attemptSummary(report) };
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
