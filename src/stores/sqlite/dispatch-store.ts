import { businessOf, type BusinessErasure } from '../../ports/retention.js';
import { sqliteDispatchRetention } from './dispatch-retention.js';
import { sqliteEventFeed } from './event-feed.js';
import type { FeedCountQuery, FeedEvent, FeedQuery } from '../../ports/event-feed.js';
import { offerDispatchReads } from '../../ports/dispatch-reads.js';
import { sqliteDispatchReads } from './dispatch-reads.js';
import { checkArgument, checkOptions, strictObject } from '../../kernel/options-check.js';
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
  WebhookHealth,
  WebhookPageQuery,
  WebhookPageRows,
} from '../../ports/dispatch-store.js';
import { sameHealth } from '../../ports/webhook-fields.js';
import { stateCounts, WEBHOOK_STATE_SQL, type WebhookStateCounts } from '../../ports/webhook-state-counts.js';
import { claimRooms, fairOrder, rateTatAfter, type ClaimCandidate, type ClaimSubject } from '../../ports/claim-plan.js';
import { asPromise } from './as-promise.js';
import { openConnection, sqliteConnectionShape, sqliteTarget, type SqliteConnectionOptions } from './open-connection.js';
import type { SqliteDatabase } from '../../ports/sqlite-database.js';
import { DISPATCH_MIGRATIONS } from './dispatch-migrations.js';
import { attemptRows, bit, deliveryRows, toEvent, toJob, WEBHOOK_COLUMNS, webhookRows, type JobRow } from './dispatch-rows.js';
import { countDeliveriesSql, exportAttemptsSql, filter, listDeliveriesSql, prepareStatements, type DispatchStatements } from './dispatch-statements.js';
import type { PreparedStatement as Statement, SqliteConnection } from './drivers.js';
import { GroupCommit } from './group-commit.js';
import { migrate } from './migrations.js';

/** The options of {@link sqliteDispatchStore}: the connection's (durability, lock waiting). */
export type SqliteDispatchStoreOptions = SqliteConnectionOptions;

const sqliteDispatchStoreOptions = strictObject(sqliteConnectionShape);

/**
 * The dispatcher's store in one SQLite file (WAL): registrations, events, the schedule (a partial
 * index of what is due) and the delivery log. Several processes may share the file: claims and
 * attempt records are IMMEDIATE transactions. better-sqlite3 is loaded here, on first use.
 * `new Dispatcher({ database: './dispatch.db' })` is the short form of this store.
 *
 * @param database a file path (created when missing) or an open better-sqlite3 Database, which
 *   stays open on `close()`
 * @throws ConfigurationError for a bad option, a file that cannot be opened or was migrated by a
 *   newer version, or a missing better-sqlite3 — here, never on first use
 * @example
 * const dispatcher = new Dispatcher({ store: sqliteDispatchStore('./data/dispatch.db', { synchronous: 'FULL' }) });
 */
export function sqliteDispatchStore(database: string | SqliteDatabase, options: SqliteDispatchStoreOptions = {}): DispatchStore {
  checkArgument(sqliteTarget, 'database', database, 'sqliteDispatchStore');
  const valid = checkOptions(sqliteDispatchStoreOptions, options, 'sqliteDispatchStore');
  const { db, owned } = openConnection(database, { ...valid, foreignKeys: true });
  // Freed cells and pages are zeroed, so that an erased payload leaves no copy in the file.
  if (owned) db.pragma('secure_delete = ON');
  migrate(db, DISPATCH_MIGRATIONS);
  return offerDispatchReads(new SqliteDispatchStore(db, owned), sqliteDispatchReads(db));
}

class SqliteDispatchStore implements DispatchStore {
  private readonly statements: DispatchStatements;
  /** Statements built from filters, prepared once per distinct combination. */
  private readonly dynamic = new Map<string, Statement<[Record<string, unknown>], Record<string, unknown>>>();
  // Attempts finishing in the same event-loop turn share one commit: at high throughput the
  // commit, not the statements, is what costs.
  private readonly records: GroupCommit;
  private readonly retention: ReturnType<typeof sqliteDispatchRetention>;
  private readonly feed: ReturnType<typeof sqliteEventFeed>;

  constructor(
    private readonly db: SqliteConnection,
    private readonly owned: boolean,
  ) {
    this.statements = prepareStatements(db);
    this.records = new GroupCommit(db);
    this.retention = sqliteDispatchRetention(db);
    this.feed = sqliteEventFeed(db);
  }

  listEvents(query: FeedQuery): Promise<FeedEvent[]> {
    return asPromise(() => this.feed.listEvents(query));
  }

  countEvents(query: FeedCountQuery): Promise<number> {
    return asPromise(() => this.feed.countEvents(query));
  }

  getEvent(id: string): Promise<FeedEvent | undefined> {
    return asPromise(() => this.feed.getEvent(id));
  }

  pruneDeliveries(before: number, limit: number): Promise<number> {
    return asPromise(() => this.retention.pruneDeliveries(before, limit));
  }

  removePayloads(before: number, limit: number, now: number): Promise<number> {
    return asPromise(() => this.retention.removePayloads(before, limit, now));
  }

  eraseBusiness(businessId: string, now: number): Promise<BusinessErasure> {
    return asPromise(() => {
      const erased = this.retention.eraseBusiness(businessId, now);
      // The WAL still holds the pages as they were before the erase: copied into the database
      // (where secure_delete zeroed what was freed) and the WAL emptied. Refused while another
      // connection reads an older snapshot; then the next checkpoint, and close(), do it.
      this.db.pragma('wal_checkpoint(TRUNCATE)');
      return erased;
    });
  }

  /** Opened and migrated when the factory ran. */
  ready(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return asPromise(() => void (this.owned && this.db.open && this.db.close()));
  }

  insertWebhook(webhook: StoredWebhook): Promise<void> {
    return asPromise(() => void this.statements.insertWebhook.run(webhookRows.write(webhook)));
  }

  getWebhook(id: string): Promise<StoredWebhook | undefined> {
    return asPromise(() => {
      const row = this.statements.getWebhook.get(id);
      return row && webhookRows.read(row);
    });
  }

  listWebhooks(): Promise<StoredWebhook[]> {
    return asPromise(() => this.statements.listWebhooks.all().map((row) => webhookRows.read(row)));
  }

  webhooksOfBusiness(businessId: string): Promise<StoredWebhook[]> {
    // Two index lookups (the business's own, then those without an owner), merged oldest first.
    return asPromise(() =>
      this.cached(`SELECT ${WEBHOOK_COLUMNS}, rowid AS position FROM dispatch_webhooks WHERE business_id = @business AND deleted_at IS NULL
        UNION ALL SELECT ${WEBHOOK_COLUMNS}, rowid AS position FROM dispatch_webhooks WHERE business_id IS NULL AND deleted_at IS NULL
        ORDER BY created_at, position`)
        .all({ business: businessId })
        .map((row) => webhookRows.read(row)),
    );
  }

  countWebhooks(): Promise<WebhookStateCounts> {
    const counted = this.cached(`SELECT ${WEBHOOK_STATE_SQL} AS state, COUNT(*) AS count FROM dispatch_webhooks WHERE deleted_at IS NULL GROUP BY state`) as unknown as Statement<[], { state: string; count: number }>;
    return asPromise(() => stateCounts(counted.all()));
  }

  pageWebhooks(query: WebhookPageQuery): Promise<WebhookPageRows> {
    return asPromise(() => {
      const conditions = ['deleted_at IS NULL', 'rowid > @after'];
      const params: Record<string, unknown> = { after: query.after, limit: query.limit + 1 };
      if (query.business_id !== undefined) {
        conditions.push('business_id = @business');
        params['business'] = query.business_id;
      }
      if (query.status !== undefined) {
        conditions.push('status = @status');
        params['status'] = query.status;
      }
      const rows = this.cached(`SELECT ${WEBHOOK_COLUMNS}, rowid AS position FROM dispatch_webhooks WHERE ${conditions.join(' AND ')} ORDER BY rowid LIMIT @limit`).all(params);
      const page = rows.slice(0, query.limit);
      return { webhooks: page.map((row) => webhookRows.read(row)), next: rows.length > query.limit ? Number(page.at(-1)?.['position']) : null };
    });
  }

  updateWebhook(id: string, changes: WebhookChanges, now: number): Promise<StoredWebhook | undefined> {
    return asPromise(() =>
      this.db
        .transaction(() => {
          const row = this.statements.getWebhook.get(id);
          if (!row) return undefined;
          const next = { ...webhookRows.read(row), ...changes, updated_at: now };
          this.statements.updateWebhook.run(webhookRows.write(next));
          if (changes.status !== undefined) this.statements.syncWebhookActive.run(bit(next.status === 'active'), id);
          return next;
        })
        .immediate(),
    );
  }

  deleteWebhook(id: string, now: number): Promise<boolean> {
    return asPromise(() =>
      this.db
        .transaction(() => {
          if (this.statements.deleteWebhook.run(now, id).changes === 0) return false;
          this.statements.endDeliveriesOfWebhook.run(now, id);
          return true;
        })
        .immediate(),
    );
  }

  insertEvent(event: StoredEvent, deliveries: readonly NewDelivery[], skippedFor: readonly string[] = []): Promise<InsertEventResult> {
    return asPromise(() =>
      this.db
        .transaction((): InsertEventResult => {
          const existing = this.statements.getEvent.get(event.id);
          if (existing) return { inserted: false, existing: toEvent(existing) };
          this.statements.insertEvent.run({ ...event, test: bit(event.test), business_id: businessOf(event.payload) });
          let inserted = 0;
          for (const delivery of deliveries) {
            inserted += this.statements.insertDelivery.run({
              id: delivery.id,
              event_id: event.id,
              webhook_id: delivery.webhook_id,
              event_type: event.type,
              correlation_id: event.correlation_id,
              next_attempt_at: delivery.lease?.until ?? delivery.next_attempt_at,
              lease_owner: delivery.lease?.owner ?? null,
              lease_until: delivery.lease?.until ?? null,
              test: bit(event.test),
              now: event.created_at,
            }).changes;
          }
          for (const webhookId of skippedFor) this.statements.insertSkipped.run({ webhook_id: webhookId, event_id: event.id, now: event.created_at });
          return { inserted: true, deliveries: inserted };
        })
        .immediate(),
    );
  }

  claimDue(request: ClaimRequest): Promise<DeliveryJob[]> {
    return asPromise(() =>
      this.db
        .transaction(() => {
          const subjects = this.statements.claimSubjects.all(request.now);
          const due = this.candidates(claimRooms(subjects, request), request.now).sort(fairOrder).slice(0, request.limit);
          for (const { seq } of due) this.statements.lease.run({ seq, owner: request.lease.owner, until: request.lease.until, now: request.now });
          this.spendRateBudgets(subjects, due, request.now);
          return due.map(({ seq }) => toJob(present(this.statements.jobBySeq.get(seq))));
        })
        .immediate(),
    );
  }

  nextDueAt(): Promise<number | null> {
    return asPromise(() => this.statements.nextDue.get()?.next_attempt_at ?? null);
  }

  listSkipped(webhookId: string): Promise<string[]> {
    return asPromise(() => this.statements.listSkipped.all(webhookId).map((row) => row.event_id));
  }

  replaySkipped(webhookId: string, deliveries: readonly (NewDelivery & { event_id: string })[], now: number): Promise<number> {
    return asPromise(() =>
      this.db
        .transaction(() => {
          let inserted = 0;
          for (const delivery of deliveries) {
            // Only what is still recorded as skipped: a replay that ran already replays nothing.
            if (this.statements.forgetSkipped.run(webhookId, delivery.event_id).changes === 0) continue;
            inserted += this.statements.insertReplayed.run({ id: delivery.id, event_id: delivery.event_id, webhook_id: webhookId, next_attempt_at: delivery.next_attempt_at, now }).changes;
          }
          return inserted;
        })
        .immediate(),
    );
  }

  replayEvents(webhookId: string, deliveries: readonly (NewDelivery & { event_id: string })[], now: number): Promise<number> {
    return asPromise(() =>
      this.db
        .transaction(() => {
          let inserted = 0;
          for (const delivery of deliveries) {
            const changes = this.statements.insertReplay.run({ id: delivery.id, event_id: delivery.event_id, webhook_id: webhookId, next_attempt_at: delivery.next_attempt_at, now }).changes;
            if (changes === 0) continue;
            inserted += changes;
            this.statements.forgetSkipped.run(webhookId, delivery.event_id);
          }
          return inserted;
        })
        .immediate(),
    );
  }

  webhookActivity(now: number): Promise<Map<string, WebhookActivity>> {
    return asPromise(() => new Map(this.statements.activity.all(now).map(({ webhook_id, ...activity }) => [webhook_id, activity])));
  }

  queueStats(now: number): Promise<QueueStats> {
    return asPromise(() => {
      const stats: QueueStats = { due: 0, scheduled: 0, in_flight: 0, paused: 0, oldest_due_at: null };
      for (const row of this.statements.queueCounts.all({ now })) {
        stats[row.state as 'due' | 'scheduled' | 'in_flight' | 'paused'] = row.n;
        if (row.state === 'due') stats.oldest_due_at = row.oldest;
      }
      return stats;
    });
  }

  loadJob(deliveryId: string): Promise<DeliveryJob | undefined> {
    return asPromise(() => {
      const row = this.statements.jobById.get(deliveryId);
      return row && toJob(row);
    });
  }

  recordAttempt(deliveryId: string, recording: AttemptRecording): Promise<RecordedAttempt> {
    // A savepoint of the group's transaction: its attempt row and its delivery's state together.
    return this.records.write(() => this.store(deliveryId, recording), { savepoint: true });
  }

  getDelivery(id: string): Promise<StoredDelivery | undefined> {
    return asPromise(() => {
      const row = this.statements.getDelivery.get(id);
      return row && deliveryRows.read(row);
    });
  }

  listDeliveries(query: DeliveryQuery): Promise<StoredDelivery[]> {
    return asPromise(() => {
      const { conditions, params } = filter(query);
      const rows = this.cached(listDeliveriesSql(conditions)).all({ ...params, limit: query.limit, offset: query.offset });
      return rows.map((row) => deliveryRows.read(row));
    });
  }

  countDeliveries(query: DeliveryCountQuery): Promise<number> {
    return asPromise(() => {
      const { conditions, params } = filter(query);
      return Number(this.cached(countDeliveriesSql(conditions)).get(params)?.count ?? 0);
    });
  }

  listAttempts(deliveryId: string): Promise<StoredAttempt[]> {
    return asPromise(() => this.statements.attemptsOfDelivery.all(deliveryId).map((row) => attemptRows.read(row)));
  }

  exportAttempts(query: AttemptQuery, cursor: number, limit: number): Promise<ExportRow[]> {
    return asPromise(() => {
      const { conditions, params } = filter(query);
      const rows = this.cached(exportAttemptsSql(conditions)).all({ ...params, cursor, limit });
      return rows.map((row): ExportRow => ({ attempt: attemptRows.read(row), delivery_status: row.delivery_status as DeliveryStatus, cursor: row.seq as number }));
    });
  }

  private store(deliveryId: string, recording: AttemptRecording): RecordedAttempt {
    const row = this.statements.getDelivery.get(deliveryId);
    if (!row) throw new Error(`Delivery ${deliveryId} vanished while an attempt was made`);
    const delivery = deliveryRows.read(row);
    const webhook = this.statements.getWebhookHealth.get(delivery.webhook_id);
    if (!webhook) throw new Error(`Delivery ${deliveryId} lost its webhook`);
    const recorded = recording(delivery, webhook);
    this.statements.insertAttempt.run(attemptRows.write(recorded.attempt));
    this.statements.setDeliveryState.run(deliveryRows.write(recorded.delivery));
    this.storeHealth(delivery.webhook_id, webhook, recorded.health);
    return recorded;
  }

  private storeHealth(webhookId: string, before: WebhookHealth, after: WebhookHealth): void {
    // A delivered attempt of a healthy webhook changes nothing: no write on the hot path.
    if (sameHealth(before, after)) return;
    this.statements.setHealth.run({ id: webhookId, ...after });
    if (after.status !== before.status) this.statements.syncWebhookActive.run(bit(after.status === 'active'), webhookId);
  }

  /** Each registration's earliest due deliveries, as many as its room, ranked within it. */
  private candidates(rooms: readonly { id: string; room: number; in_flight: number }[], now: number): ClaimCandidate[] {
    return rooms.flatMap(({ id, room, in_flight }) =>
      this.statements.dueOfWebhook.all(id, now, room).map((row, rank) => ({ ...row, fairness: in_flight + rank + 1 })),
    );
  }

  private spendRateBudgets(subjects: readonly ClaimSubject[], claimed: readonly ClaimCandidate[], now: number): void {
    for (const subject of subjects) {
      if (subject.rate_limit === null) continue;
      const taken = claimed.filter((candidate) => candidate.webhook_id === subject.id).length;
      if (taken > 0) this.statements.setRateTat.run(rateTatAfter(subject.rate_limit, subject.rate_tat, now, taken), subject.id);
    }
  }

  private cached(sql: string): Statement<[Record<string, unknown>], Record<string, unknown>> {
    let statement = this.dynamic.get(sql);
    if (!statement) {
      statement = this.db.prepare<[Record<string, unknown>], Record<string, unknown>>(sql);
      this.dynamic.set(sql, statement);
    }
    return statement;
  }
}

function present(row: JobRow | undefined): JobRow {
  if (!row) throw new Error('A delivery lost its event or webhook row');
  return row;
}
