import { parseRedactionPath, redact, type RedactionPath } from './log-redaction.js';
import { REDACTED_CENSOR, REDACTED_PATHS, type LogFn, type Logger } from './logger.js';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
const PATHS: readonly RedactionPath[] = REDACTED_PATHS.map(parseRedactionPath);

/**
 * `inner` with {@link REDACTED_PATHS} blanked in the fields of every line before `inner` sees
 * them: a handler's `log` blanks secrets and signatures whatever logger the user passed in. Done
 * here rather than with `child(…, { redact })`, because pino's child then *replaces* the user's
 * own redaction paths (a `customer.email` the user blanks would be printed); this way the user's
 * logger keeps all of its own rules and ours come on top.
 */
export function redactingLogger(inner: Logger): Logger {
  const methods = Object.fromEntries(
    LEVELS.map((level) => {
      const write: LogFn = (fieldsOrMessage: object | string, message?: string) => {
        if (typeof fieldsOrMessage === 'string') inner[level](fieldsOrMessage);
        else inner[level](redact(fieldsOrMessage, PATHS, REDACTED_CENSOR), message);
      };
      return [level, write];
    }),
  ) as Pick<Logger, (typeof LEVELS)[number]>;
  return { ...methods, child: (bindings, options) => redactingLogger(inner.child(redact(bindings, PATHS, REDACTED_CENSOR), options)) };
}
