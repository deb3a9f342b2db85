import type { AttemptRecording, RecordedAttempt, StoredDelivery } from '../dispatcher/store.js';
import { attemptRows, deliveryRows } from './dispatch-rows.js';
import { STATE_COLUMNS } from './dispatch-statements.js';
import type { PostgresPool, PostgresQueryable } from './pool.js';
import { run, type Statement } from './statement.js';
import { withTransaction } from './transaction.js';

interface Pending {
  deliveryId: string;
  recording: AttemptRecording;
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
 * Each record is the dispatcher's decision (`AttemptRecording`) applied to the delivery as the
 * records before it in the batch left it. A record whose delivery vanished is refused alone. If the
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

  record(deliveryId: string, recording: AttemptRecording): Promise<RecordedAttempt> {
    return new Promise((resolve, reject) => {
      this.queue.push({ deliveryId, recording, resolve, reject });
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
    const ids = [...new Set(batch.map((pending) => pending.deliveryId))].sort();
    const rows = (await run(client, this.sql.lockDeliveries, [ids])).rows as Record<string, unknown>[];
    const current = new Map<string, StoredDelivery>(rows.map((row) => {
      const delivery = deliveryRows.read(row);
      return [delivery.id, delivery];
    }));
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
    if (recorded.length > 0) await run(client, this.sql.recordAttempts, parameters(recorded));
    return outcomes;
  }
}

/** One record applied to its delivery's state as the batch has left it so far. */
function next(current: Map<string, StoredDelivery>, { deliveryId, recording }: Pending): RecordedAttempt {
  const delivery = current.get(deliveryId);
  if (!delivery) throw new Error(`Delivery ${deliveryId} vanished while an attempt was made`);
  return recording(delivery);
}

/** The parameters of `recordAttempts`: attempt columns in batch order, then each delivery's final state once. */
function parameters(recorded: RecordedAttempt[]): unknown[] {
  const attempts = recorded.map(({ attempt }) => attemptRows.write(attempt));
  const finals = [...new Map(recorded.map(({ delivery }) => [delivery.id, deliveryRows.write(delivery)])).values()];
  return [...attemptRows.columns.map((column) => attempts.map((row) => row[column])), ...STATE_COLUMNS.map((column) => finals.map((row) => row[column]))];
}
