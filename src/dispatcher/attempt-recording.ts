import type { DeliveryTransition } from './schedule.js';
import type { AttemptRecording, NewAttempt } from './store.js';

/**
 * What a store keeps for `attempt`, decided from the delivery as the store's transaction sees
 * it: the attempt gets the next number (manual ones count too), the delivery the state the
 * schedule's `transition` gives, one more attempt and the attempt's time as `updated_at`. Written
 * once, here: every backend stores the result as it is.
 */
export function recordingOf(attempt: NewAttempt, transition: DeliveryTransition): AttemptRecording {
  return (current) => {
    const attemptNumber = current.attempt_count + 1;
    return {
      attempt: { ...attempt, attempt_number: attemptNumber },
      delivery: { ...current, ...transition(current), attempt_count: attemptNumber, updated_at: attempt.attempted_at },
    };
  };
}
