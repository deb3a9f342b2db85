import { isAcctWebhookError } from '../kernel/errors.js';

export interface ErrorLineOptions {
  /** Append the stack (and the causes' stacks): for bug reports, never by default. */
  verbose?: boolean;
}

/**
 * The one line a command prints on stderr when it stops: `<command>: <message> [<CODE>]` for this
 * package's errors (the code is stable, scripts may match it), `<command>: unexpected error: …`
 * for anything else. A multi-line message is folded into one line; the stack only with `verbose`.
 */
export function errorLine(command: string, error: unknown, options: ErrorLineOptions = {}): string {
  const line = isAcctWebhookError(error)
    ? `${command}: ${oneLine(error.message)} [${error.code}]`
    : `${command}: unexpected error: ${oneLine(error instanceof Error ? error.message : String(error))}`;
  return options.verbose ? `${line}\n${stacks(error)}` : `${line}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function stacks(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < MAX_CAUSES; current = current.cause, depth++) {
    parts.push(depth === 0 ? (current.stack ?? String(current)) : `caused by: ${current.stack ?? String(current)}`);
  }
  return parts.length > 0 ? `${parts.join('\n')}\n` : '';
}

/** Causes printed with --verbose; a longer chain is cut (and a cycle cannot loop). */
const MAX_CAUSES = 5;
