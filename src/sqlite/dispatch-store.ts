import BetterSqlite3 from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
import type { EventType } from '../events/catalog.js';
import { ConfigurationError } from '../errors.js';
import type { AttemptErrorKind, DeliveryStatus, WebhookStatus } from './records.js';
import { GroupCommit } from '../sqlite/group-commit.js';
import { migrate } from './sqlite-schema.js';
import type {
  AttemptQuery,
  ClaimRequest,
  DeliveryJob,
  DeliveryQuery,
  DeliveryTransition,
  DispatchStorage,
  ExportRow,
  InsertEventResult,
  NewAttempt,
  NewDelivery,
  RecordedAttempt,
  StoredAttempt,
  StoredDelivery,
  StoredEvent,
  StoredWebhook,
  WebhookChanges,
} from './storage.js';

/** How long a connection waits for another process's write lock before failing. */
const BUSY_TIMEOUT_MS = 5_000;

interface WebhookRow {
  id: string;
  url: string;
  events: string;
  headers: string;
  status: WebhookStatus;
  secret: string;
  created_at: number;
  updated_at: number;
}

interface EventRow {
  id: string;
  type: EventType;
  payload: string;
  correlation_id: string;
  test: number;
  created_at: number;
}

interface DeliveryRow {
  seq: number;
  id: string;
  event_id: string;
  event_type: EventType;
  webhook_id: string;
  correlation_id: string;
  status: DeliveryStatus;
  attempt_count: number;
  automatic_attempt_count: number;
  next_attempt_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  test: number;
  created_at: number;
  updated_at: number;
}

interface AttemptRow {
  seq: number;
  id: string;
  delivery_id: string;
  webhook_id: string;
  url: string;
  event_id: string;
  event_type: EventType;
  attempt_number: number;
  attempted_at: number;
  response_status: number | null;
  response_time_ms: number;
  receiver_ip: string | null;
  correlation_id: string;
  request_payload: string;
  response_body: string | null;
  response_body_truncated: number;
  error_kind: AttemptErrorKind | null;
  error_message: string | null;
  manual: number;
  test: number;
}

const ATTEMPT_COLUMNS = `a.seq, a.id, a.delivery_id, a.webhook_id, a.url, a.event_id, a.event_type, a.attempt_number,
  a.attempted_at, a.response_status, a.response_time_ms, a.receiver_ip, a.correlation_id, e.payload AS request_payload,
  a.response_body, a.response_body_truncated, a.error_kind, a.error_message, a.manual, a.test`;

/**
 * The built-in storage: one SQLite file (WAL, `synchronous=NORMAL`), prepared statements, the
 * schedule in an index on `(status, next_attempt_at)`. Several processes may share the file:
 * claims and attempt records are IMMEDIATE transactions.
 *
 * @example
 * const dispatcher = new Dispatcher({ database: new SqliteDispatchStorage('./dispatch.db') });
 */
export class SqliteDispatchStorage implements DispatchStorage {
  readonly db: Database;
  private readonly ownsDatabase: boolean;
  private readonly statements: ReturnType<typeof prepareStatements>;
  private readonly dynamic = new Map<string, Statement>();
  // Attempts finishing in the same event-loop turn share one commit: at high throughput the
  // commit, not the statements, is what costs.
  private readonly records: GroupCommit;

  /**
   * @param database a file path (created when missing) or an open better-sqlite3 database, which
   *   stays open on `close()`.
   * @throws ConfigurationError when the file cannot be opened or has a newer schema.
   */
  constructor(database: string | Database) {
    this.ownsDatabase = typeof database === 'string';
    this.db = typeof database === 'string' ? openFile(database) : database;
    configure(this.db);
    migrate(this.db);
    this.statements = prepareStatements(this.db);
    this.records = new GroupCommit(this.db);
  }

  init(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return run(() => {
      if (this.ownsDatabase && this.db.open) this.db.close();
    });
  }

  insertWebhook(webhook: StoredWebhook): Promise<void> {
    return run(() => {
      this.statements.insertWebhook.run({
        ...webhook,
        events: JSON.stringify(webhook.events),
        headers: JSON.stringify(webhook.headers),
      });
    });
  }

  getWebhook(id: string): Promise<StoredWebhook | undefined> {
    return run(() => {
      const row = this.statements.getWebhook.get(id);
      return row && toWebhook(row);
    });
  }

  listWebhooks(): Promise<StoredWebhook[]> {
    return run(() => this.statements.listWebhooks.all().map(toWebhook));
  }

  updateWebhook(id: string, changes: WebhookChanges, now: number): Promise<StoredWebhook | undefined> {
    return run(() =>
      this.db.transaction(() => {
        const row = this.statements.getWebhook.get(id);
        if (!row) return undefined;
        const next = { ...toWebhook(row), ...changes, updated_at: now };
        this.statements.updateWebhook.run({
          ...next,
          events: JSON.stringify(next.events),
          headers: JSON.stringify(next.headers),
        });
        return next;
      }).immediate(),
    );
  }

  deleteWebhook(id: string, now: number): Promise<boolean> {
    return run(() =>
      this.db.transaction(() => {
        if (this.statements.deleteWebhook.run(now, id).changes === 0) return false;
        this.statements.endDeliveriesOfWebhook.run(now, id);
        return true;
      }).immediate(),
    );
  }

  insertEvent(event: StoredEvent, deliveries: readonly NewDelivery[]): Promise<InsertEventResult> {
    return run(() =>
      this.db.transaction((): InsertEventResult => {
        const existing = this.statements.getEvent.get(event.id);
        if (existing) return { inserted: false, existing: toEvent(existing) };
        this.statements.insertEvent.run({ ...event, test: bit(event.test) });
        let inserted = 0;
        for (const delivery of deliveries) {
          const result = this.statements.insertDelivery.run({
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
          });
          inserted += result.changes;
        }
        return { inserted: true, deliveries: inserted };
      }).immediate(),
    );
  }

  claimDue(request: ClaimRequest): Promise<DeliveryJob[]> {
    return run(() =>
      this.db.transaction(() => {
        const due = this.statements.dueDeliveries.all(request.now, request.limit);
        for (const { seq } of due) {
          // Setting next_attempt_at to the lease's end makes an abandoned lease due again by the
          // same index, with no separate sweep for crashed workers.
          this.statements.lease.run({ seq, owner: request.lease.owner, until: request.lease.until, now: request.now });
        }
        return due.map(({ seq }) => this.jobWhere(this.statements.jobBySeq, seq));
      }).immediate(),
    );
  }

  nextDueAt(): Promise<number | null> {
    return run(() => this.statements.nextDue.get()?.next_attempt_at ?? null);
  }

  loadJob(deliveryId: string): Promise<DeliveryJob | undefined> {
    return run(() => (this.statements.getDelivery.get(deliveryId) ? this.jobWhere(this.statements.jobById, deliveryId) : undefined));
  }

  recordAttempt(attempt: NewAttempt, transition: DeliveryTransition): Promise<RecordedAttempt> {
    return this.records.write(() => this.recordOne({ attempt, transition }), { savepoint: true });
  }

  /** One attempt record, in a savepoint of the group's transaction. */
  private recordOne({ attempt, transition }: { attempt: NewAttempt; transition: DeliveryTransition }): RecordedAttempt {
    const row = this.statements.getDelivery.get(attempt.delivery_id);
    if (!row) throw new Error(`Delivery ${attempt.delivery_id} vanished while an attempt was made`);
    const current = toDelivery(row);
    const state = transition(current);
    const attemptNumber = current.attempt_count + 1;
    const { request_payload: _sentAlready, ...columns } = attempt;
    this.statements.insertAttempt.run({
      ...columns,
      attempt_number: attemptNumber,
      response_body_truncated: bit(attempt.response_body_truncated),
      manual: bit(attempt.manual),
      test: bit(attempt.test),
    });
    this.statements.updateDeliveryState.run({ ...state, attempt_count: attemptNumber, id: current.id, now: attempt.attempted_at });
    return {
      attempt: { ...attempt, attempt_number: attemptNumber },
      delivery: { ...current, ...state, attempt_count: attemptNumber, updated_at: attempt.attempted_at },
    };
  }

  getDelivery(id: string): Promise<StoredDelivery | undefined> {
    return run(() => {
      const row = this.statements.getDelivery.get(id);
      return row && toDelivery(row);
    });
  }

  listDeliveries(query: DeliveryQuery): Promise<StoredDelivery[]> {
    return run(() => {
      const { sql, params } = filter(query, DELIVERY_FILTERS);
      const where = sql.length > 0 ? `WHERE ${sql.join(' AND ')}` : '';
      const rows = this.cached<DeliveryRow>(
        `SELECT * FROM dispatch_deliveries d ${where} ORDER BY d.seq DESC LIMIT @limit OFFSET @offset`,
      ).all({ ...params, limit: query.limit, offset: query.offset });
      return rows.map(toDelivery);
    });
  }

  listAttempts(deliveryId: string): Promise<StoredAttempt[]> {
    return run(() => this.statements.attemptsOfDelivery.all(deliveryId).map(toAttempt));
  }

  exportAttempts(query: AttemptQuery, cursor: number, limit: number): Promise<ExportRow[]> {
    return run(() => {
      const { sql, params } = filter(query, ATTEMPT_FILTERS);
      const rows = this.cached<AttemptRow & { delivery_status: DeliveryStatus }>(
        `SELECT ${ATTEMPT_COLUMNS}, d.status AS delivery_status
        FROM dispatch_attempts a
        JOIN dispatch_events e ON e.id = a.event_id
        JOIN dispatch_deliveries d ON d.id = a.delivery_id
        WHERE ${['a.seq > @cursor', ...sql].join(' AND ')} ORDER BY a.seq LIMIT @limit`,
      ).all({ ...params, cursor, limit });
      return rows.map((row) => ({ attempt: toAttempt(row), delivery_status: row.delivery_status, cursor: row.seq }));
    });
  }

  /** Statements built from filters, prepared once per distinct filter combination. */
  private cached<Row>(sql: string): Statement<[Record<string, unknown>], Row> {
    let statement = this.dynamic.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.dynamic.set(sql, statement);
    }
    return statement as Statement<[Record<string, unknown>], Row>;
  }

  private jobWhere<K>(statement: Statement<[K], JobRow>, key: K): DeliveryJob {
    const row = statement.get(key);
    if (!row) throw new Error('A delivery lost its event or webhook row');
    return toJob(row);
  }
}

function openFile(path: string): Database {
  try {
    return new BetterSqlite3(path);
  } catch (error) {
    throw new ConfigurationError({ option: 'database', reason: `cannot be opened: ${(error as Error).message}` }, `Cannot open the dispatch database "${path}": ${(error as Error).message}`);
  }
}

function configure(db: Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
}

/** Runs synchronous SQLite work behind the async interface; a throw becomes a rejection. */
function run<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

const bit = (value: boolean): number => (value ? 1 : 0);

type JobRow = DeliveryRow & {
  payload: string;
  event_test: number;
  event_created_at: number;
  url: string;
  secret: string;
  headers: string;
};

const JOB_SELECT = `SELECT d.*, e.payload, e.test AS event_test, e.created_at AS event_created_at, w.url, w.secret, w.headers
  FROM dispatch_deliveries d
  JOIN dispatch_events e ON e.id = d.event_id
  JOIN dispatch_webhooks w ON w.id = d.webhook_id`;

/** The worker's two questions; both must be answered from the (status, next_attempt_at) index. */
export const DUE_DELIVERIES_SQL = `SELECT d.seq FROM dispatch_deliveries d
  JOIN dispatch_webhooks w ON w.id = d.webhook_id
  WHERE d.status = 'retrying' AND d.next_attempt_at <= ? AND w.status = 'active' AND w.deleted_at IS NULL
  ORDER BY d.next_attempt_at LIMIT ?`;
export const NEXT_DUE_SQL = `SELECT next_attempt_at FROM dispatch_deliveries
  WHERE status = 'retrying' AND next_attempt_at IS NOT NULL ORDER BY next_attempt_at LIMIT 1`;

function prepareStatements(db: Database) {
  return {
    insertWebhook: db.prepare(`INSERT INTO dispatch_webhooks (id, url, events, headers, status, secret, created_at, updated_at)
      VALUES (@id, @url, @events, @headers, @status, @secret, @created_at, @updated_at)`),
    getWebhook: db.prepare<[string], WebhookRow>('SELECT * FROM dispatch_webhooks WHERE id = ? AND deleted_at IS NULL'),
    listWebhooks: db.prepare<[], WebhookRow>('SELECT * FROM dispatch_webhooks WHERE deleted_at IS NULL ORDER BY created_at, rowid'),
    updateWebhook: db.prepare(`UPDATE dispatch_webhooks SET url = @url, events = @events, headers = @headers, status = @status,
      secret = @secret, updated_at = @updated_at WHERE id = @id`),
    deleteWebhook: db.prepare<[number, string]>('UPDATE dispatch_webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL'),
    endDeliveriesOfWebhook: db.prepare<[number, string]>(`UPDATE dispatch_deliveries
      SET status = 'finally_failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ?
      WHERE webhook_id = ? AND status = 'retrying'`),
    getEvent: db.prepare<[string], EventRow>('SELECT * FROM dispatch_events WHERE id = ?'),
    insertEvent: db.prepare(`INSERT INTO dispatch_events (id, type, payload, correlation_id, test, created_at)
      VALUES (@id, @type, @payload, @correlation_id, @test, @created_at)`),
    insertDelivery: db.prepare(`INSERT INTO dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status,
        next_attempt_at, lease_owner, lease_until, test, created_at, updated_at)
      SELECT @id, @event_id, @webhook_id, @event_type, @correlation_id, 'retrying', @next_attempt_at, @lease_owner, @lease_until,
        @test, @now, @now
      WHERE EXISTS (SELECT 1 FROM dispatch_webhooks WHERE id = @webhook_id AND deleted_at IS NULL)`),
    dueDeliveries: db.prepare<[number, number], { seq: number }>(DUE_DELIVERIES_SQL),
    lease: db.prepare(`UPDATE dispatch_deliveries SET lease_owner = @owner, lease_until = @until, next_attempt_at = @until,
      updated_at = @now WHERE seq = @seq`),
    nextDue: db.prepare<[], { next_attempt_at: number }>(NEXT_DUE_SQL),
    jobBySeq: db.prepare<[number], JobRow>(`${JOB_SELECT} WHERE d.seq = ?`),
    jobById: db.prepare<[string], JobRow>(`${JOB_SELECT} WHERE d.id = ?`),
    getDelivery: db.prepare<[string], DeliveryRow>('SELECT * FROM dispatch_deliveries WHERE id = ?'),
    updateDeliveryState: db.prepare(`UPDATE dispatch_deliveries SET status = @status, attempt_count = @attempt_count,
      automatic_attempt_count = @automatic_attempt_count, next_attempt_at = @next_attempt_at, lease_owner = @lease_owner,
      lease_until = @lease_until, updated_at = @now WHERE id = @id`),
    insertAttempt: db.prepare(`INSERT INTO dispatch_attempts (id, delivery_id, webhook_id, url, event_id, event_type, attempt_number,
        attempted_at, response_status, response_time_ms, receiver_ip, correlation_id, response_body, response_body_truncated,
        error_kind, error_message, manual, test)
      VALUES (@id, @delivery_id, @webhook_id, @url, @event_id, @event_type, @attempt_number, @attempted_at, @response_status,
        @response_time_ms, @receiver_ip, @correlation_id, @response_body, @response_body_truncated, @error_kind, @error_message,
        @manual, @test)`),
    attemptsOfDelivery: db.prepare<[string], AttemptRow>(`SELECT ${ATTEMPT_COLUMNS} FROM dispatch_attempts a
      JOIN dispatch_events e ON e.id = a.event_id WHERE a.delivery_id = ? ORDER BY a.seq`),
  };
}

// Filter name → SQL condition; a filter applies when its value is given.
const DELIVERY_FILTERS = {
  status: 'd.status = @status',
  type: 'd.event_type = @type',
  webhookId: 'd.webhook_id = @webhookId',
  since: 'd.created_at >= @since',
  until: 'd.created_at < @until',
} as const;

const ATTEMPT_FILTERS = {
  status: 'd.status = @status',
  type: 'a.event_type = @type',
  webhookId: 'a.webhook_id = @webhookId',
  since: 'a.attempted_at >= @since',
  until: 'a.attempted_at < @until',
} as const;

function filter(
  query: DeliveryQuery | AttemptQuery,
  conditions: typeof DELIVERY_FILTERS | typeof ATTEMPT_FILTERS,
): { sql: string[]; params: Record<string, unknown> } {
  const given = (Object.keys(conditions) as (keyof typeof conditions)[]).filter((key) => query[key] !== undefined);
  return { sql: given.map((key) => conditions[key]), params: Object.fromEntries(given.map((key) => [key, query[key]])) };
}

function toWebhook(row: WebhookRow): StoredWebhook {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    headers: JSON.parse(row.headers) as Record<string, string>,
    status: row.status,
    secret: row.secret,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toEvent(row: EventRow): StoredEvent {
  return { ...row, test: row.test === 1 };
}

function toDelivery(row: DeliveryRow): StoredDelivery {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    webhook_id: row.webhook_id,
    correlation_id: row.correlation_id,
    status: row.status,
    attempt_count: row.attempt_count,
    automatic_attempt_count: row.automatic_attempt_count,
    next_attempt_at: row.next_attempt_at,
    lease_owner: row.lease_owner,
    lease_until: row.lease_until,
    test: row.test === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toAttempt(row: AttemptRow): StoredAttempt {
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    webhook_id: row.webhook_id,
    url: row.url,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt_number: row.attempt_number,
    attempted_at: row.attempted_at,
    response_status: row.response_status,
    response_time_ms: row.response_time_ms,
    receiver_ip: row.receiver_ip,
    correlation_id: row.correlation_id,
    request_payload: row.request_payload,
    response_body: row.response_body,
    response_body_truncated: row.response_body_truncated === 1,
    error_kind: row.error_kind,
    error_message: row.error_message,
    manual: row.manual === 1,
    test: row.test === 1,
  };
}

function toJob(row: JobRow): DeliveryJob {
  return {
    delivery: toDelivery(row),
    event: {
      id: row.event_id,
      type: row.event_type,
      payload: row.payload,
      correlation_id: row.correlation_id,
      test: row.event_test === 1,
      created_at: row.event_created_at,
    },
    webhook: { id: row.webhook_id, url: row.url, secret: row.secret, headers: JSON.parse(row.headers) as Record<string, string> },
  };
}
