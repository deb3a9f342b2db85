import type { DeliveryTransition, NewAttempt, RecordedAttempt, StoredDelivery } from '../dispatcher/storage.js';
import { toDelivery, type DeliveryRow } from './dispatch-rows.js';
import { int8, nullableInt8 } from './int8.js';
import type { PostgresPool, PostgresQueryable } from './pool.js';
import { run, type Statement } from './statement.js';
import { encodeNullableText } from './text-codec.js';
import { withTransaction } from './transaction.js';

interface Pending {
  attempt: NewAttempt;
  transition: DeliveryTransition;
  resolve: (recorded: RecordedAttempt) => void;
  reject: (error: Error) => void;
}

type Outcome = { ok: true; recorded: RecordedAttempt } | { ok: false; error: Error };

/** SQLSTATEs after which the whole transaction may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']); // deadlock_detected, serialization_failure
const MAX_TRIES = 3;

/**
 * Group commit for attempt records: the records submitted during one turn of the event loop
 * (attempts that finished together) share one transaction — one row lock statement, one insert,
 * one update and one commit instead of four round trips and a commit each. Each record still
 * sees its delivery's row as it is, locked, and a promise resolves only after the commit.
 *
 * A record whose transition cannot be applied (its delivery vanished) is refused alone. If the
 * transaction fails, every record of the batch is refused and none is stored; a deadlock with a
 * concurrent bulk update (a webhook deleted or disabled) is retried first.
 */
export class AttemptRecorder {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly pool: PostgresPool,
    private readonly sql: { lockDeliveries: Statement; recordAttempts: Statement },
  ) {}

  record(attempt: NewAttempt, transition: DeliveryTransition): Promise<RecordedAttempt> {
    return new Promise((resolve, reject) => {
      this.queue.push({ attempt, transition, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    try {
      const outcomes = await this.commit(batch);
      batch.forEach((pending, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) pending.resolve(outcome.recorded);
        else pending.reject(outcome.error);
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private async commit(batch: Pending[]): Promise<Outcome[]> {
    for (let tries = 1; ; tries++) {
      try {
        return await withTransaction(this.pool, (client) => this.apply(client, batch));
      } catch (error) {
        if (tries >= MAX_TRIES || !RETRYABLE.has((error as { code?: string }).code ?? '')) throw error;
      }
    }
  }

  /** Under the row locks of every delivery in the batch, taken in id order so that batches never deadlock each other. */
  private async apply(client: PostgresQueryable, batch: Pending[]): Promise<Outcome[]> {
    const ids = [...new Set(batch.map((pending) => pending.attempt.delivery_id))].sort();
    const rows = (await run(client, this.sql.lockDeliveries, [ids])).rows as DeliveryRow[];
    const current = new Map<string, StoredDelivery>(rows.map((row) => [row.id, toDelivery(row)]));
    const outcomes = batch.map((pending): Outcome => {
      try {
        const recorded = next(current, pending);
        current.set(recorded.delivery.id, recorded.delivery);
        return { ok: true, recorded };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
      }
    });
    const recorded = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.recorded] : []));
    if (recorded.length > 0) await run(client, this.sql.recordAttempts, columns(recorded));
    return outcomes;
  }
}

/** One record applied to its delivery's state as the batch has left it so far. */
function next(current: Map<string, StoredDelivery>, { attempt, transition }: Pending): RecordedAttempt {
  const delivery = current.get(attempt.delivery_id);
  if (!delivery) throw new Error(`Delivery ${attempt.delivery_id} vanished while an attempt was made`);
  const state = transition(delivery);
  const attemptNumber = delivery.attempt_count + 1;
  return {
    attempt: { ...attempt, attempt_number: attemptNumber },
    delivery: { ...delivery, ...state, attempt_count: attemptNumber, updated_at: attempt.attempted_at },
  };
}

/** The parameters of `recordAttempts`: attempt columns in batch order, then each delivery's final state once. */
function columns(recorded: RecordedAttempt[]): unknown[] {
  const attempts = recorded.map(({ attempt }) => attempt);
  const finals = [...new Map(recorded.map(({ delivery }) => [delivery.id, delivery])).values()];
  const of = <T, V>(items: T[], pick: (item: T) => V): V[] => items.map(pick);
  return [
    of(attempts, (a) => a.id),
    of(attempts, (a) => a.delivery_id),
    of(attempts, (a) => a.webhook_id),
    of(attempts, (a) => a.url),
    of(attempts, (a) => a.event_id),
    of(attempts, (a) => a.event_type),
    of(attempts, (a) => a.attempt_number),
    of(attempts, (a) => int8(a.attempted_at, 'attempted_at')),
    of(attempts, (a) => a.response_status),
    of(attempts, (a) => a.response_time_ms),
    of(attempts, (a) => a.receiver_ip),
    of(attempts, (a) => a.correlation_id),
    // A receiver's answer may hold what PostgreSQL text cannot (U+0000): stored escaped.
    of(attempts, (a) => encodeNullableText(a.response_body)),
    of(attempts, (a) => a.response_body_truncated),
    of(attempts, (a) => a.error_kind),
    of(attempts, (a) => encodeNullableText(a.error_message)),
    of(attempts, (a) => a.manual),
    of(attempts, (a) => a.test),
    of(finals, (d) => d.id),
    of(finals, (d) => d.status),
    of(finals, (d) => d.attempt_count),
    of(finals, (d) => d.automatic_attempt_count),
    of(finals, (d) => nullableInt8(d.next_attempt_at, 'next_attempt_at')),
    of(finals, (d) => d.lease_owner),
    of(finals, (d) => nullableInt8(d.lease_until, 'lease_until')),
    of(finals, (d) => int8(d.updated_at, 'updated_at')),
  ];
}
