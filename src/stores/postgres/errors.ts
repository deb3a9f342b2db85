import { AcctWebhookError, type ErrorDetails } from '../../kernel/errors.js';

/**
 * A value that cannot cross between JavaScript and PostgreSQL without changing: a time that is
 * not a whole number of milliseconds, or a bigint column beyond Number.MAX_SAFE_INTEGER.
 */
export class PostgresValueError extends AcctWebhookError<'UNSAFE_INTEGER'> {
  constructor(message: string, details: ErrorDetails) {
    super('UNSAFE_INTEGER', message, details);
  }
}

/**
 * Atomic effects on PostgreSQL that did not finish within what was left of the handler budget:
 * their transaction was rolled back, so neither they nor the completion mark were stored.
 */
export class AtomicEffectTimeoutError extends AcctWebhookError<'ATOMIC_EFFECT_TIMEOUT'> {
  constructor(budgetMs: number) {
    super('ATOMIC_EFFECT_TIMEOUT', `The atomic effects did not finish within the ${Math.max(0, Math.round(budgetMs))} ms left of the handler budget; nothing was stored`, {
      budget_ms: Math.max(0, Math.round(budgetMs)),
    });
  }
}
