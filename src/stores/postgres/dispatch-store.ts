import { businessOf, PAYLOAD_REMOVED, type BusinessErasure } from '../../ports/retention.js';
import { z } from 'zod';
import { offerDispatchReads } from '../../ports/dispatch-reads.js';
import { postgresDispatchReads } from './dispatch-reads.js';
import { parseOptions } from '../../kernel/configuration.js';
import type { DeliveryStatus } from '../../ports/dispatch-statuses.js';
import type {
  AttemptQuery,
  AttemptRecording,
  ClaimRequest,
  DeliveryCountQuery,
  DeliveryJob,
  DeliveryQuery,
  DispatchStore,
  ExportRow,
  InsertEventResult,
  NewDelivery,
  RecordedAttempt,
  StoredAttempt,
  StoredDelivery,
  StoredEvent,
  StoredWebhook,
  QueueStats,
  WebhookActivity,
  WebhookChanges,
  WebhookPageQuery,
  WebhookPageRows,
} from '../../ports/dispatch-store.js';
import { claimRooms, rateTatAfter, type ClaimSubject } from '../../ports/claim-plan.js';
import { onceSucceeded } from '../../kernel/once.js';
import { parseArgument } from '../../kernel/parse-argument.js';
import { AttemptRecorder } from './attempt-recorder.js';
import { DISPATCH_MIGRATIONS } from './dispatch-migrations.js';
import { attemptRows, deliveryRows, toEvent, toJob, webhookRows, webhookValues, type EventRow, type JobRow, type WebhookRow } from './dispatch-rows.js';
import { attemptWhere, CLAIM_TYPES, dispatchStatements, Parameters, whereOf } from './dispatch-statements.js';
import { int8, nullableInt8, readInt8, readNullableInt8 } from './int8.js';
import { migrate } from './migrations.js';
import { feedStatement, toFeedEvent, type FeedRow } from './event-feed.js';
import type { FeedCountQuery, FeedEvent, FeedQuery } from '../../ports/event-feed.js';
import { connectionShape, postgresTarget, schemaName } from './options.js';
import { openPool, type CheckedConnectionOptions, type PostgresConnectionOptions, type PostgresPool } from './pool.js';
import { BEGIN_WITH_GENERIC_PLANS, run, runAndCommit, statementPreparer, type Statement } from './statement.js';
import { Committed, withTransaction } from './transaction.js';
import { postgresWakeUps, wakeUpChannel } from './wake-ups.js';
import type { WakeUps } from '../../ports/wake-ups.js';
import { stateCounts, type WebhookStateCounts } from '../../ports/webhook-state-counts.js';

/** Claims on one schema take this advisory lock (with the schema's hash), one at a time. */
const CLAIM_LOCK_NAMESPACE = 0x61637764; // 'acwd'

/** The rate limits' states after a claim: one per rate-limited registration that got something. */
function rateBudgetsAfter(subjects: readonly ClaimSubject[], jobs: readonly DeliveryJob[], now: number): { id: string; tat: number }[] {
  return subjects.flatMap((subject) => {
    const taken = jobs.filter((job) => job.webhook.id === subject.id).length;
    return subject.rate_limit === null || taken === 0 ? [] : [{ id: subject.id, tat: rateTatAfter(subject.rate_limit, subject.rate_tat, now, taken) }];
  });
}

/** The options of {@link postgresDispatchStore}: the connection's (schema, pool size, timeouts, prepared statements). */
export type PostgresDispatchStoreOptions = PostgresConnectionOptions;

/**
 * The Dispatcher's store on PostgreSQL, for several dispatcher processes sharing one schedule.
 * `next_attempt_at` is the queue: each worker leases due deliveries with `FOR UPDATE SKIP LOCKED`
 * in the statement that writes the lease, so two workers never hold the same delivery; a lease
 * whose worker died expires and the delivery is due again. An attempt's log row and the
 * delivery's next state are written in one transaction under the delivery's row lock.
 *
 * Returns at once; the tables are created (migrated) on first use or by `ready()`.
 *
 * @param poolOrUrl a `postgres://` URL (a pool is opened, and ended by `close()`) or a `pg.Pool`
 *   (left open by `close()`)
 * @throws ConfigurationError for a bad URL, pool or option, here and never later (never with the password)
 * @example
 * const dispatcher = new Dispatcher({ store: postgresDispatchStore(process.env.DATABASE_URL!) });
 */
export function postgresDispatchStore(poolOrUrl: PostgresPool | string, options: PostgresDispatchStoreOptions = {}): DispatchStore {
  // Everything is checked before a pool is opened.
  parseArgument(postgresTarget, 'poolOrUrl', poolOrUrl, 'postgresDispatchStore');
  const valid = parseOptions(z.strictObject(connectionShape(typeof poolOrUrl === 'string')), options, 'postgresDispatchStore');
  return new PostgresDispatchStore(poolOrUrl, valid);
}

class PostgresDispatchStore implements DispatchStore {
  private readonly pool: PostgresPool;
  private readonly ownsPool: boolean;
  private readonly sql: ReturnType<typeof dispatchStatements>;
  private readonly migrated: () => Promise<void>;
  private readonly recorder: AttemptRecorder;
  /**
   * Claims run one at a time per schema (an advisory lock on the schema's name), so that the
   * counts of attempts in flight that decide each registration's room hold across workers.
   * A claim's BEGIN, its advisory lock and the read of the registrations (claimSubjects) go in one
   * round trip (the schema name is an identifier the options checked, so it may be written into the
   * text). The lock is a statement of its own, so that the read after it takes its snapshot after
   * the lock was granted.
   */
  private readonly claimBegin: string;
  private closing: Promise<void> | null = null;
  /** NOTIFY when an emit queued deliveries, LISTEN in every worker (wake-ups.ts). */
  readonly wakeUps: WakeUps;

  constructor(poolOrUrl: PostgresPool | string, options: CheckedConnectionOptions) {
    const schema = schemaName(options);
    const prepare = statementPreparer(options.preparedStatements);
    ({ pool: this.pool, owned: this.ownsPool } = openPool(poolOrUrl, options));
    const channel = wakeUpChannel('dispatch', schema.name);
    this.sql = dispatchStatements(schema.quoted, prepare, channel);
    this.wakeUps = postgresWakeUps(this.pool, channel);
    this.claimBegin = `${BEGIN_WITH_GENERIC_PLANS}; SELECT pg_advisory_xact_lock(${CLAIM_LOCK_NAMESPACE}, hashtext('${schema.name}'))`;
    this.recorder = new AttemptRecorder(this.pool, this.sql);
    this.migrated = onceSucceeded(async () => {
      await migrate(this.pool, schema, DISPATCH_MIGRATIONS);
    });    offerDispatchReads(this, postgresDispatchReads(this.pool, schema.quoted, { ready: () => this.ready(), prepare }));
  }

  /** Creates or migrates the tables; safe when several processes start at once, tried again after a failure. */
  ready(): Promise<void> {
    return this.migrated();
  }

  close(): Promise<void> {
    this.closing ??= this.ownsPool ? this.pool.end() : Promise.resolve();
    return this.closing;
  }

  async insertWebhook(webhook: StoredWebhook): Promise<void> {
    await this.query(this.sql.insertWebhook, webhookValues(webhook));
  }

  async getWebhook(id: string): Promise<StoredWebhook | undefined> {
    const [row] = await this.rows<WebhookRow>(this.sql.getWebhook, [id]);
    return row && webhookRows.read(row);
  }

  async listWebhooks(): Promise<StoredWebhook[]> {
    return (await this.rows<WebhookRow>(this.sql.listWebhooks, [])).map((row) => webhookRows.read(row));
  }

  async webhooksOfBusiness(businessId: string): Promise<StoredWebhook[]> {
    return (await this.rows<WebhookRow>(this.sql.webhooksOfBusiness, [businessId])).map((row) => webhookRows.read(row));
  }

  async countWebhooks(): Promise<WebhookStateCounts> {
    return stateCounts(await this.rows<{ state: string; count: number }>(this.sql.countWebhooks, []));
  }

  async pageWebhooks(query: WebhookPageQuery): Promise<WebhookPageRows> {
    const rows = await this.rows<WebhookRow & { seq: string }>(this.sql.pageWebhooks, [int8(query.after, 'after'), query.business_id ?? null, query.status ?? null, query.limit + 1]);
    const page = rows.slice(0, query.limit);
    return { webhooks: page.map((row) => webhookRows.read(row)), next: rows.length > query.limit ? Number(page.at(-1)?.seq) : null };
  }

  async updateWebhook(id: string, changes: WebhookChanges, now: number): Promise<StoredWebhook | undefined> {
    await this.migrated();
    return withTransaction(this.pool, async (client) => {
      const [row] = (await run(client, this.sql.lockWebhook, [id])).rows as WebhookRow[];
      if (!row) return undefined;
      const current = webhookRows.read(row);
      const next = { ...current, ...changes, updated_at: now };
      await run(client, this.sql.writeWebhook, webhookValues(next));
      // A statement of its own, so that it sees the deliveries of an insertEvent it waited for (see insertEvent's lock).
      if (changes.status !== undefined) await run(client, this.sql.syncWebhookActive, [id, next.status === 'active']);
      return next;
    });
  }

  async deleteWebhook(id: string, now: number): Promise<boolean> {
    await this.migrated();
    return withTransaction(this.pool, async (client) => {
      if ((await run(client, this.sql.deleteWebhook, [id, int8(now, 'now')])).rows.length === 0) return false;
      // A statement of its own, so that it sees deliveries committed while the lock was awaited.
      await run(client, this.sql.endDeliveriesOfWebhook, [id, int8(now, 'now')]);
      return true;
    });
  }

  async insertEvent(event: StoredEvent, deliveries: readonly NewDelivery[], skippedFor: readonly string[] = []): Promise<InsertEventResult> {
    const [counts] = await this.rows<{ events: unknown; deliveries: unknown }>(this.sql.insertEvent, [
      event.id,
      event.type,
      event.payload,
      event.correlation_id,
      event.test,
      int8(event.created_at, 'created_at'),
      deliveries.map((delivery) => delivery.webhook_id),
      deliveries.map((delivery) => delivery.id),
      deliveries.map((delivery) => int8(delivery.lease?.until ?? delivery.next_attempt_at, 'next_attempt_at')),
      deliveries.map((delivery) => delivery.lease?.owner ?? null),
      deliveries.map((delivery) => nullableInt8(delivery.lease?.until ?? null, 'lease.until')),
      skippedFor,
      businessOf(event.payload),
    ]);
    if (readInt8(counts?.events, 'events') === 1) return { inserted: true, deliveries: readInt8(counts?.deliveries, 'deliveries') };
    const [existing] = await this.rows<EventRow>(this.sql.getEvent, [event.id]);
    if (!existing) throw new Error(`Event ${event.id} was neither inserted nor found`);
    return { inserted: false, existing: toEvent(existing) };
  }

  async claimDue(request: ClaimRequest): Promise<DeliveryJob[]> {
    await this.migrated();
    const now = int8(request.now, 'now');
    return withTransaction(this.pool, async (client, [, , begun]) => {
      const subjects = begun!.rows as ClaimSubject[];
      const rooms = claimRooms(subjects, request);
      if (rooms.length === 0) return [];
      const values = [
        now,
        request.limit,
        rooms.map((room) => room.id),
        rooms.map((room) => room.room),
        rooms.map((room) => room.in_flight),
        request.lease.owner,
        int8(request.lease.until, 'lease.until'),
      ];
      // A rate limit's state is written after the claim, from what it took: then the COMMIT is a
      // round trip of its own. Otherwise it goes with the claim where it can (runAndCommit).
      const rateLimited = subjects.some((subject) => subject.rate_limit !== null && rooms.some((room) => room.id === subject.id));
      if (!rateLimited) {
        const { result, committed } = await runAndCommit(client, this.sql.claimDue, values, CLAIM_TYPES);
        const claimed = (result.rows as JobRow[]).map(toJob);
        return committed ? new Committed(claimed) : claimed;
      }
      const jobs = ((await run(client, this.sql.claimDue, values)).rows as JobRow[]).map(toJob);
      const budgets = rateBudgetsAfter(subjects, jobs, request.now);
      if (budgets.length > 0) await run(client, this.sql.setRateTats, [budgets.map((budget) => budget.id), budgets.map((budget) => budget.tat)]);
      return jobs;
    }, `${this.claimBegin}; ${this.sql.claimSubjects(now)}`);
  }

  async nextDueAt(): Promise<number | null> {
    const [row] = await this.rows<{ next_attempt_at: unknown }>(this.sql.nextDue, []);
    return row ? readNullableInt8(row.next_attempt_at, 'next_attempt_at') : null;
  }

  async listSkipped(webhookId: string): Promise<string[]> {
    return (await this.rows<{ event_id: string }>(this.sql.listSkipped, [webhookId])).map((row) => row.event_id);
  }

  async replayEvents(webhookId: string, deliveries: readonly (NewDelivery & { event_id: string })[], now: number): Promise<number> {
    const [row] = await this.rows<{ n: number }>(this.sql.replayEvents, [
      webhookId,
      deliveries.map((delivery) => delivery.id),
      deliveries.map((delivery) => delivery.event_id),
      deliveries.map((delivery) => int8(delivery.next_attempt_at, 'next_attempt_at')),
      int8(now, 'now'),
    ]);
    return row?.n ?? 0;
  }

  async replaySkipped(webhookId: string, deliveries: readonly (NewDelivery & { event_id: string })[], now: number): Promise<number> {
    const [row] = await this.rows<{ n: number }>(this.sql.replaySkipped, [
      webhookId,
      deliveries.map((delivery) => delivery.id),
      deliveries.map((delivery) => delivery.event_id),
      deliveries.map((delivery) => int8(delivery.next_attempt_at, 'next_attempt_at')),
      int8(now, 'now'),
    ]);
    return row?.n ?? 0;
  }

  async webhookActivity(now: number): Promise<Map<string, WebhookActivity>> {
    const rows = await this.rows<{ webhook_id: string; in_flight: number; skipped_events: number }>(this.sql.activity, [int8(now, 'now')]);
    return new Map(rows.map(({ webhook_id, ...activity }) => [webhook_id, activity]));
  }

  async queueStats(now: number): Promise<QueueStats> {
    const stats: QueueStats = { due: 0, scheduled: 0, in_flight: 0, paused: 0, oldest_due_at: null };
    for (const row of await this.rows<{ state: 'due' | 'scheduled' | 'in_flight' | 'paused'; n: number; oldest: unknown }>(this.sql.queueCounts, [int8(now, 'now')])) {
      stats[row.state] = row.n;
      if (row.state === 'due') stats.oldest_due_at = readNullableInt8(row.oldest, 'oldest');
    }
    return stats;
  }

  async loadJob(deliveryId: string): Promise<DeliveryJob | undefined> {
    const [row] = await this.rows<JobRow>(this.sql.jobById, [deliveryId]);
    return row && toJob(row);
  }

  /** Resolves once committed; attempts finishing together share one transaction (see AttemptRecorder). */
  async recordAttempt(deliveryId: string, recording: AttemptRecording): Promise<RecordedAttempt> {
    await this.migrated();
    return this.recorder.record(deliveryId, recording);
  }

  async getDelivery(id: string): Promise<StoredDelivery | undefined> {
    const [row] = await this.rows<Record<string, unknown>>(this.sql.getDelivery, [id]);
    return row && deliveryRows.read(row);
  }

  async listDeliveries(query: DeliveryQuery): Promise<StoredDelivery[]> {
    const params = new Parameters();
    const where = whereOf(query, params, this.sql.attemptsTable);
    const text = this.sql.listDeliveries(where, params.add(query.limit), params.add(query.offset));
    return (await this.rows<Record<string, unknown>>(text, params.values)).map((row) => deliveryRows.read(row));
  }

  async countDeliveries(query: DeliveryCountQuery): Promise<number> {
    const params = new Parameters();
    const [row] = await this.rows<{ count: unknown }>(this.sql.countDeliveries(whereOf(query, params, this.sql.attemptsTable)), params.values);
    return readInt8(row?.count ?? 0, 'count');
  }

  async listAttempts(deliveryId: string): Promise<StoredAttempt[]> {
    return (await this.rows<Record<string, unknown>>(this.sql.attemptsOfDelivery, [deliveryId])).map((row) => attemptRows.read(row));
  }

  async exportAttempts(query: AttemptQuery, cursor: number, limit: number): Promise<ExportRow[]> {
    const params = new Parameters();
    const where = attemptWhere(query, cursor, params, this.sql.attemptsTable);
    const rows = await this.rows<Record<string, unknown>>(this.sql.exportAttempts(where, params.add(limit)), params.values);
    return rows.map((row) => ({ attempt: attemptRows.read(row), delivery_status: row.delivery_status as DeliveryStatus, cursor: readInt8(row.seq, 'seq') }));
  }

  async listEvents(query: FeedQuery): Promise<FeedEvent[]> {
    const { text, values } = feedStatement(this.sql.eventsTable, query, false);
    return (await this.rows<FeedRow>(text, values)).map(toFeedEvent);
  }

  async countEvents(query: FeedCountQuery): Promise<number> {
    const { text, values } = feedStatement(this.sql.eventsTable, query, true);
    const [row] = await this.rows<{ n: unknown }>(text, values);
    return readInt8(row?.n, 'n');
  }

  async getEvent(id: string): Promise<FeedEvent | undefined> {
    const [row] = await this.rows<FeedRow>(this.sql.getFeedEvent, [id]);
    return row ? toFeedEvent(row) : undefined;
  }

  async pruneDeliveries(before: number, limit: number): Promise<number> {
    const gone = await this.rows<{ event_id: string }>(this.sql.pruneDeliveries, [int8(before, 'before'), limit]);
    if (gone.length > 0) await this.query(this.sql.pruneEvents, [[...new Set(gone.map((row) => row.event_id))]]);
    return gone.length;
  }

  async removePayloads(before: number, limit: number, now: number): Promise<number> {
    return (await this.rows<{ id: string }>(this.sql.removePayloads, [int8(before, 'before'), limit, int8(now, 'now'), PAYLOAD_REMOVED])).length;
  }

  async eraseBusiness(businessId: string, now: number): Promise<BusinessErasure> {
    await this.migrated();
    return withTransaction(this.pool, async (client) => {
      const ended = await run(client, this.sql.eraseEndDeliveries, [businessId, int8(now, 'now')]);
      await run(client, this.sql.eraseSkipped, [businessId]);
      const bodies = await run(client, this.sql.eraseBodies, [businessId, PAYLOAD_REMOVED]);
      const events = await run(client, this.sql.erasePayloads, [businessId, PAYLOAD_REMOVED, int8(now, 'now')]);
      const [gone] = (await run(client, this.sql.eraseWebhooks, [businessId, int8(now, 'now'), PAYLOAD_REMOVED])).rows as { webhooks: number; ended: number }[];
      return { events: events.rowCount ?? 0, attempts: bodies.rowCount ?? 0, deliveriesEnded: (ended.rowCount ?? 0) + (gone?.ended ?? 0), webhooks: gone?.webhooks ?? 0 };
    });
  }

  private async query(statement: Statement | string, values: unknown[]): Promise<{ rows: unknown[] }> {
    await this.migrated();
    return run(this.pool, typeof statement === 'string' ? { text: statement } : statement, values);
  }

  private async rows<Row>(statement: Statement | string, values: unknown[]): Promise<Row[]> {
    return (await this.query(statement, values)).rows as Row[];
  }
}
