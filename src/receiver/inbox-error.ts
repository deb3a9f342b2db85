import { WebhookHandlerError, type ReceiverError } from './errors.js';
import { utf8Length } from '../kernel/bytes.js';

/**
 * The most an inbox event's `last_error.message` holds, in UTF-8 bytes: enough for an error's
 * class and message, never a stack trace or a payload that happens to be in a message.
 */
export const LAST_ERROR_MAX_BYTES = 1024;

const ELLIPSIS = '…';
// Control characters (a newline, an escape sequence, NUL) would break the one-line views (the
// CLI's table, a log line) or drive the terminal that shows them.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * What an inbox run's failure keeps as `last_error.message`: for failing handlers their own
 * errors, `TypeError: customer cus_1 not found` (several joined with `; `), rather than the
 * receiver's "A handler failed"; for anything else (a timeout) the receiver's message. One line,
 * at most {@link LAST_ERROR_MAX_BYTES}, cut with "…".
 */
export function lastErrorMessage(failure: ReceiverError): string {
  return lastErrorText(failure instanceof WebhookHandlerError && failure.errors.length > 0 ? failure.errors.map(describeThrown).join('; ') : failure.message);
}

/** Any text as `last_error.message` keeps it: one line, at most {@link LAST_ERROR_MAX_BYTES}. */
export function lastErrorText(text: string): string {
  return bounded(oneLine(text), LAST_ERROR_MAX_BYTES);
}

/** `Class: message` of what a handler threw; for a value that is not an Error, the value itself. */
function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) {
      const name = thrown.name || thrown.constructor.name || 'Error';
      return thrown.message === '' ? name : `${name}: ${thrown.message}`;
    }
    if (typeof thrown === 'string') return thrown;
    return JSON.stringify(thrown) ?? String(thrown);
  } catch {
    // A getter that throws, a value with a cycle: its type is what can still be told.
    return Object.prototype.toString.call(thrown);
  }
}

function oneLine(text: string): string {
  return text.replace(CONTROL, ' ').replace(UNPAIRED_SURROGATE, '\uFFFD').trim();
}

/** `text` cut to at most `maxBytes` of UTF-8, between characters, ending with "…" when cut. */
function bounded(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text;
  const room = maxBytes - utf8Length(ELLIPSIS);
  let bytes = 0;
  let kept = '';
  for (const character of text) {
    bytes += utf8Length(character);
    if (bytes > room) break;
    kept += character;
  }
  return kept + ELLIPSIS;
}
