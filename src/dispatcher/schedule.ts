import type { StoredDelivery } from '../ports/delivery-fields.js';

/** The part of a delivery's state the schedule decides after an attempt. */
export type ScheduleState = Pick<StoredDelivery, 'status' | 'automatic_attempt_count' | 'next_attempt_at' | 'lease_owner' | 'lease_until'>;

/** The schedule's decision, from the delivery as it is when the attempt is recorded. */
export type DeliveryTransition = (current: StoredDelivery) => ScheduleState;

/**
 * Waits before attempts 1–7, in seconds, as the platform's document gives them: 0, 1 min, 5 min,
 * 30 min, 2 h, 8 h, 24 h — attempts at 0, 1, 6, 36, 156, 636 and 2076 minutes after the first.
 */
export const RETRY_SCHEDULE: readonly number[] = Object.freeze([0, 60, 300, 1800, 7200, 28800, 86400]);

/**
 * The wait in milliseconds before automatic attempt `attemptNumber` (1-based); `null` when the
 * schedule has no such attempt.
 */
export function waitBeforeAttempt(schedule: readonly number[], attemptNumber: number): number | null {
  const seconds = schedule[attemptNumber - 1];
  return seconds === undefined ? null : seconds * 1000;
}

export interface AttemptOutcome {
  delivered: boolean;
  manual: boolean;
  /** The worker that leased the delivery for this attempt; ignored for manual attempts. */
  leaseOwner: string;
  /** When the attempt started: the next one is due a schedule step after this. */
  startedAt: number;
  schedule: readonly number[];
}

/**
 * The delivery's state machine after an attempt:
 * - 2xx → `delivered`, nothing more planned (also for a manual attempt, also when another worker
 *   holds a lease: its later record then finds no lease and changes nothing);
 * - a failed automatic attempt by the lease holder → the next attempt at start + the schedule's
 *   next wait, or `finally_failed` after the last one;
 * - a failed manual attempt, or a result from a worker that lost its lease → the state stays as
 *   it is; the attempt is logged all the same.
 */
export function afterAttempt(outcome: AttemptOutcome): DeliveryTransition {
  return (current) => {
    const holdsLease = !outcome.manual && current.status === 'retrying' && current.lease_owner === outcome.leaseOwner;
    const automatic = current.automatic_attempt_count + (holdsLease ? 1 : 0);
    if (outcome.delivered) return settled('delivered', automatic);
    if (!holdsLease) return unchanged(current);
    const wait = waitBeforeAttempt(outcome.schedule, automatic + 1);
    if (wait === null) return settled('finally_failed', automatic);
    return { status: 'retrying', automatic_attempt_count: automatic, next_attempt_at: outcome.startedAt + wait, lease_owner: null, lease_until: null };
  };
}

function settled(status: 'delivered' | 'finally_failed', automatic: number): ScheduleState {
  return { status, automatic_attempt_count: automatic, next_attempt_at: null, lease_owner: null, lease_until: null };
}

function unchanged(current: StoredDelivery): ScheduleState {
  return {
    status: current.status,
    automatic_attempt_count: current.automatic_attempt_count,
    next_attempt_at: current.next_attempt_at,
    lease_owner: current.lease_owner,
    lease_until: current.lease_until,
  };
}
