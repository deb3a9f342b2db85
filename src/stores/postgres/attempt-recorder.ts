import type { AttemptRecording, RecordedAttempt, StoredDelivery, WebhookHealth } from '../../ports/dispatch-store.js';
import { HEALTH_FIELDS, sameHealth } from '../../ports/webhook-fields.js';
import { nullableInt8, readNullableInt8 } from './int8.js';
import { attemptRows, deliveryRows } from './dispatch-rows.js';
import { RECORD_TYPES, STATE_COLUMNS } from './dispatch-statements.js';
import type { PostgresPool, PostgresQueryable, PostgresQueryResult } from './pool.js';
import { BEGIN_WITH_GENERIC_PLANS, run, runAndCommit, type Statement } from './statement.js';
import { Committed, withTransaction } from './transaction.js';
import { TurnBatch } from './turn-batch.js';

/** One record submitted: which delivery, and the dispatcher's decision for it. */
interface Submitted {
  deliveryId: string;
  recording: AttemptRecording;
}

/** A record's own result in its batch: stored, or refused alone (its delivery vanished). */
type Outcome = { ok: true; recorded: RecordedAttempt } | { ok: false; error: Error };

/**
 * Group commit for attempt records, on {@link TurnBatch}: the records submitted during one turn
 * of the event loop (attempts that finished together) share one transaction of two round trips
 * — BEGIN with the deliveries' row locks, then one statement writing the attempts, the deliveries
 * and any health changed, with the COMMIT (runAndCommit) — instead of a transaction each. One more
 * round trip takes the registrations' lock when the batch changes a health other than by growing a
 * delivered streak (which is added as it is written, see recordAttempts), and the COMMIT is a
 * round trip of its own the first time on a connection or without prepared statements.
 * Each record still sees its delivery's row as it is, locked, and a promise resolves only after
 * the commit.
 *
 * Each record is the dispatcher's decision (`AttemptRecording`) applied to the delivery as the
 * records before it in the batch left it. A record whose delivery vanished is refused alone. If the
 * transaction fails, every record of the batch is refused and none is stored; a deadlock with a
 * concurrent bulk update (a webhook deleted or disabled) is retried first (TurnBatch runs the
 * whole transaction again).
 */
export class AttemptRecorder {
  private readonly batch: TurnBatch<Submitted, Outcome>;

  constructor(
    pool: PostgresPool,
    private readonly sql: { lockBatch: (ids: readonly string[]) => string; lockHealth: Statement; lockStatus: Statement; recordAttempts: Statement; syncWebhooksActive: Statement },
  ) {
    // The batch's BEGIN and its lock of the deliveries go in one round trip.
    this.batch = new TurnBatch((batch) => withTransaction(pool, (client, [, locked]) => this.apply(client, batch, locked!), `${BEGIN_WITH_GENERIC_PLANS}; ${this.sql.lockBatch(deliveryIds(batch))}`));
  }

  async record(deliveryId: string, recording: AttemptRecording): Promise<RecordedAttempt> {
    const outcome = await this.batch.submit({ deliveryId, recording });
    if (!outcome.ok) throw outcome.error;
    return outcome.recorded;
  }

  /**
   * Under the row locks of every delivery of the batch, then of every registration whose health it
   * changes, each in id order, so that batches never deadlock each other (a deadlock with a
   * webhook's update, which locks the webhook before its deliveries, is retried by TurnBatch). The
   * registrations' lock is FOR NO KEY UPDATE, which an emit's FOR KEY SHARE does not wait for; a
   * status change takes FOR UPDATE.
   *
   * The health is first read as last committed, without a lock: a batch that leaves every health
   * as it was (delivered attempts of a healthy registration, the steady state) writes none and
   * takes no registration lock, so batches of one registration do not wait for each other's
   * commits. It is as if the batch ran before any change committed since it read. A batch that
   * changes a health locks its registrations, reads their health afresh and decides again from it,
   * unless all it changes is delivered streaks grown (a new registration's slow start, where every
   * batch does): those are written as increments, capped, to the health as it is at the write.
   */
  private async apply(client: PostgresQueryable, batch: readonly Submitted[], locked: PostgresQueryResult): Promise<Outcome[] | Committed<Outcome[]>> {
    const read = readBatch(locked);
    let decided = decide(read, batch);
    // A batch that only grows delivered streaks adds the growth as it writes (recordAttempts).
    const growth = decided.changed.size > 0 && decided.grown.size === decided.changed.size ? decided.grown : NO_GROWTH;
    if (decided.changed.size > 0 && growth === NO_GROWTH) {
      const health = await this.lockedHealth(client, [...read.health.keys()]);
      decided = decide({ deliveries: read.deliveries, health }, batch);
    }
    const { outcomes, before, after } = decided;
    const changed = growth === NO_GROWTH ? decided.changed : NO_CHANGE;
    const recorded = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.recorded] : []));
    if (recorded.length === 0) return outcomes;
    const statusChanged = [...changed].filter(([id, health]) => health.status !== before.get(id)?.status).map(([id]) => id);
    if (statusChanged.length > 0) await run(client, this.sql.lockStatus, [statusChanged]);
    const values = [...parameters(recorded), ...healthParameters(changed), ...growthParameters(growth)];
    const disabled = [...after].filter(([id, health]) => health.status !== 'active' && before.get(id)?.status === 'active').map(([id]) => id);
    if (disabled.length > 0) {
      await run(client, this.sql.recordAttempts, values);
      await run(client, this.sql.syncWebhooksActive, [disabled]);
      return outcomes;
    }
    // The write and the COMMIT in one round trip where it can.
    const { committed } = await runAndCommit(client, this.sql.recordAttempts, values, RECORD_TYPES.map((type) => `${type}[]`));
    return committed ? new Committed(outcomes) : outcomes;
  }

  /** The registrations' health, locked (lockHealth), in id order. */
  private async lockedHealth(client: PostgresQueryable, webhookIds: string[]): Promise<Map<string, WebhookHealth>> {
    const rows = (await run(client, this.sql.lockHealth, [webhookIds.sort()])).rows as Record<string, unknown>[];
    return new Map(rows.map((row) => [row.id as string, toHealth(row, '')]));
  }
}

/** The batch's delivery ids, each once, in id order (the order lockBatch locks them in). */
function deliveryIds(batch: readonly Submitted[]): string[] {
  return [...new Set(batch.map((pending) => pending.deliveryId))].sort();
}

/** The batch's deliveries, locked, and their registrations' health as last committed (lockBatch's rows). */
function readBatch(locked: PostgresQueryResult): BatchState {
  const deliveries = new Map<string, StoredDelivery>();
  const health = new Map<string, WebhookHealth>();
  for (const row of locked.rows as Record<string, unknown>[]) {
    const delivery = deliveryRows.read(row);
    deliveries.set(delivery.id, delivery);
    if (!health.has(delivery.webhook_id)) health.set(delivery.webhook_id, toHealth(row));
  }
  return { deliveries, health };
}

/** The batch's deliveries (locked) and their registrations' health, as read. */
interface BatchState {
  deliveries: ReadonlyMap<string, StoredDelivery>;
  health: ReadonlyMap<string, WebhookHealth>;
}

/**
 * Each record of the batch applied in order to the state the records before it left, and the
 * registrations' health before and after the batch, with those it changed.
 */
function decide(read: BatchState, batch: readonly Submitted[]) {
  const state = { deliveries: new Map(read.deliveries), health: new Map(read.health) };
  // The registrations each of whose records only grew the delivered streak (or left the health as it was), with the cap.
  const onlyGrown = new Map<string, number | undefined>();
  const outcomes = batch.map((pending): Outcome => {
    try {
      const recorded = next(state, pending);
      const webhookId = recorded.delivery.webhook_id;
      const grew = onlyGrown.has(webhookId) ? onlyGrown.get(webhookId) !== undefined : true;
      onlyGrown.set(webhookId, grew && onlyStreakGrew(state.health.get(webhookId)!, recorded.health) ? recorded.deliveredStreakCap : undefined);
      state.deliveries.set(recorded.delivery.id, recorded.delivery);
      state.health.set(webhookId, recorded.health);
      return { ok: true, recorded };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
    }
  });
  // Only what changed: a delivered attempt of a healthy webhook writes nothing more.
  const changed = new Map([...state.health].filter(([id, health]) => !sameHealth(read.health.get(id)!, health)));
  const grown = new Map<string, StreakGrowth>();
  for (const [id, health] of changed) {
    const cap = onlyGrown.get(id);
    const was = read.health.get(id)!;
    if (cap !== undefined) grown.set(id, { status: was.status, grownBy: health.delivered_streak - was.delivered_streak, cap });
  }
  return { outcomes, before: read.health, after: state.health, changed, grown };
}

/** How much a batch grew a registration's delivered streak and nothing else, from its status as read, and the cap of the streak. */
interface StreakGrowth {
  status: WebhookHealth['status'];
  grownBy: number;
  cap: number;
}

const NO_GROWTH: ReadonlyMap<string, StreakGrowth> = new Map();
const NO_CHANGE: ReadonlyMap<string, WebhookHealth> = new Map();

/** `after` is `before` with a delivered streak as long or longer, from a registration that has no failure in its streak. */
function onlyStreakGrew(before: WebhookHealth, after: WebhookHealth): boolean {
  return before.failure_streak === 0 && after.delivered_streak >= before.delivered_streak && sameHealth(before, { ...after, delivered_streak: before.delivered_streak });
}

/** One record applied to its delivery's state and its webhook's health as the batch has left them so far. */
function next(state: { deliveries: Map<string, StoredDelivery>; health: Map<string, WebhookHealth> }, { deliveryId, recording }: Submitted): RecordedAttempt {
  const delivery = state.deliveries.get(deliveryId);
  if (!delivery) throw new Error(`Delivery ${deliveryId} vanished while an attempt was made`);
  const health = state.health.get(delivery.webhook_id);
  if (!health) throw new Error(`Delivery ${deliveryId} lost its webhook`);
  return recording(delivery, health);
}

/** The registration's health from lockBatch's `webhook_…` columns, or lockHealth's (no prefix). */
function toHealth(row: Record<string, unknown>, prefix = 'webhook_'): WebhookHealth {
  return {
    status: row[`${prefix}status`] as WebhookHealth['status'],
    failure_streak: row[`${prefix}failure_streak`] as number,
    failing_since: readNullableInt8(row[`${prefix}failing_since`], 'failing_since'),
    last_failure_at: readNullableInt8(row[`${prefix}last_failure_at`], 'last_failure_at'),
    disabled_at: readNullableInt8(row[`${prefix}disabled_at`], 'disabled_at'),
    disabled_reason: row[`${prefix}disabled_reason`] as WebhookHealth['disabled_reason'],
    delivered_streak: row[`${prefix}delivered_streak`] as number,
  };
}

/** The growth part of `recordAttempts`'s parameters, a column each (empty arrays: none). */
function growthParameters(growth: ReadonlyMap<string, StreakGrowth>): unknown[] {
  const entries = [...growth];
  return [entries.map(([id]) => id), entries.map(([, grown]) => grown.status), entries.map(([, grown]) => grown.grownBy), entries.map(([, grown]) => grown.cap)];
}

/** The health part of `recordAttempts`'s parameters: the ids, then each health field as a column (empty arrays: no change). */
function healthParameters(health: ReadonlyMap<string, WebhookHealth>): unknown[] {
  const entries = [...health];
  const column = (field: (typeof HEALTH_FIELDS)[number]) =>
    entries.map(([, value]) => (field === 'failing_since' || field === 'last_failure_at' || field === 'disabled_at' ? nullableInt8(value[field], field) : value[field]));
  return [entries.map(([id]) => id), ...HEALTH_FIELDS.map(column)];
}

/** The parameters of `recordAttempts`: attempt columns in batch order, then each delivery's final state once. */
function parameters(recorded: RecordedAttempt[]): unknown[] {
  const attempts = recorded.map(({ attempt }) => attemptRows.write(attempt));
  const finals = [...new Map(recorded.map(({ delivery }) => [delivery.id, deliveryRows.write(delivery)])).values()];
  return [...attemptRows.columns.map((column) => attempts.map((row) => row[column])), ...STATE_COLUMNS.map((column) => finals.map((row) => row[column]))];
}
