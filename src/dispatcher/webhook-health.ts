import type { HealthAlert, WebhookHealth } from '../ports/dispatch-store.js';
import type { WebhookStatus } from '../ports/dispatch-statuses.js';

/** When a failing registration is warned about and disabled. */
export interface FailurePolicy {
  /** A streak of failed attempts spanning this long (first to latest, ms) disables the registration; `null`: never. */
  disableAfterMs: number | null;
  /** Shares of `disableAfterMs` at which a warning is reported, ascending. */
  warnAt: readonly number[];
  /** Delivered attempts in a row are counted up to this (the per-webhook cap: no more is needed). @default 0 */
  countDeliveredUpTo?: number;
}

/** A registration's health after one attempt, and what to tell an operator about it. */
export interface HealthTransition {
  health: WebhookHealth;
  alerts: HealthAlert[];
}

/**
 * The health state machine, one attempt at a time:
 * - delivered → the streak is over (count 0, no failing_since): a receiver that recovers before
 *   the limit starts from nothing again; the delivered streak grows by one (up to the policy's
 *   `countDeliveredUpTo`), and a failure sets it back to 0;
 * - failed → one more in the streak; for an active registration, each warning threshold that the
 *   streak's span (first failure → this one) has just reached is reported, and a span of
 *   `disableAfterMs` or more disables it (`disabled_reason: 'failing'`), reported instead of the
 *   warnings. A disabled registration keeps counting and reports nothing more.
 */
export function healthAfterAttempt(current: WebhookHealth, outcome: { delivered: boolean; at: number }, policy: FailurePolicy): HealthTransition {
  if (outcome.delivered) {
    const deliveredStreak = Math.min(current.delivered_streak + 1, Math.max(policy.countDeliveredUpTo ?? 0, current.delivered_streak));
    return { health: { ...current, failure_streak: 0, failing_since: null, last_failure_at: null, delivered_streak: deliveredStreak }, alerts: [] };
  }
  const failingSince = current.failing_since ?? outcome.at;
  const health: WebhookHealth = { ...current, failure_streak: current.failure_streak + 1, failing_since: failingSince, last_failure_at: outcome.at, delivered_streak: 0 };
  if (current.status !== 'active' || policy.disableAfterMs === null) return { health, alerts: [] };
  const span = outcome.at - failingSince;
  if (span >= policy.disableAfterMs) {
    return { health: { ...health, ...disabledHealth('failing', outcome.at) }, alerts: [{ kind: 'disabled' }] };
  }
  const before = current.last_failure_at === null || current.failing_since === null ? -1 : current.last_failure_at - current.failing_since;
  const limit = policy.disableAfterMs;
  const alerts = policy.warnAt.filter((share) => before < share * limit && span >= share * limit).map((threshold): HealthAlert => ({ kind: 'failing', threshold }));
  return { health, alerts };
}

/** The health fields a status set by hand (`update`, `enable`) brings: enabling starts a clean slate. */
export function healthOfStatus(status: WebhookStatus, now: number): Partial<WebhookHealth> {
  return status === 'active' ? { ...HEALTHY, status } : disabledHealth('manual', now);
}

function disabledHealth(reason: 'manual' | 'failing', now: number): Pick<WebhookHealth, 'status' | 'disabled_at' | 'disabled_reason'> {
  return { status: 'disabled', disabled_at: now, disabled_reason: reason };
}

/** A new or re-enabled registration's health. */
export const HEALTHY: WebhookHealth = Object.freeze({
  status: 'active',
  failure_streak: 0,
  failing_since: null,
  last_failure_at: null,
  disabled_at: null,
  disabled_reason: null,
  delivered_streak: 0,
});
