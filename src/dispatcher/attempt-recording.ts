import type { DeliveryTransition } from './schedule.js';
import type { AttemptRecording, NewAttempt } from '../ports/dispatch-store.js';
import { healthAfterAttempt, type FailurePolicy } from './webhook-health.js';

/**
 * What a store keeps for `attempt`, decided from the delivery and its registration's health as
 * the store's transaction sees them: the attempt gets the next number (manual ones count too),
 * the delivery the state the schedule's `transition` gives, one more attempt and the attempt's
 * time as `updated_at`, and the registration the health `policy` gives. Written once, here:
 * every backend stores the result as it is.
 */
export function recordingOf(attempt: NewAttempt, transition: DeliveryTransition, policy: FailurePolicy = NEVER_DISABLE): AttemptRecording {
  return (current, health) => {
    const attemptNumber = current.attempt_count + 1;
    const next = healthAfterAttempt(health, { delivered: attempt.error_kind === null, at: attempt.attempted_at }, policy);
    return {
      attempt: { ...attempt, attempt_number: attemptNumber },
      delivery: { ...current, ...transition(current), attempt_count: attemptNumber, updated_at: attempt.attempted_at },
      health: next.health,
      alerts: next.alerts,
      deliveredStreakCap: policy.countDeliveredUpTo ?? 0,
    };
  };
}

/** Counts streaks and never disables: for stores tested without a dispatcher. */
const NEVER_DISABLE: FailurePolicy = { disableAfterMs: null, warnAt: [] };
