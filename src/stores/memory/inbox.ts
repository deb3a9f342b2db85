import type { EnqueueResult, InboxInput, InboxStats, InboxStore } from '../../ports/inbox.js';
import { DEFAULT_INBOX_LIST_LIMIT, insertedColumns, inboxStats, toClaimed, toInboxEvent, type InboxRow } from '../../ports/inbox-rows.js';
import { compareVersions, type ObjectVersion, type ObjectVersions } from '../../ports/versions.js';

/** The memory store's ordering table; `record` keeps the newest. */
export interface MemoryVersions extends ObjectVersions {
  record(version: ObjectVersion, now: number): void;
  prune(before: number): void;
}

export function memoryVersions(): MemoryVersions {
  const newest = new Map<string, { version: ObjectVersion; updatedAt: number }>();
  return {
    newest: (key) => Promise.resolve(newest.get(key)?.version),
    record(version, now) {
      const current = newest.get(version.key);
      if (!current || compareVersions(version, current.version) > 0) newest.set(version.key, { version, updatedAt: now });
    },
    prune(before) {
      for (const [key, entry] of newest) if (entry.updatedAt <= before) newest.delete(key);
    },
  };
}

type Row = InboxRow;

/** The inbox of `memoryStore`: the same rules as the SQL stores, in a Map (gone on restart). */
export function memoryInbox(versions: MemoryVersions, isRecorded: (eventId: string) => boolean): InboxStore & { prune(before: number): void; rows(): Iterable<InboxRow>; row(eventId: string): InboxRow | undefined } {
  const rows = new Map<string, Row>();
  const order = (row: Row) => ({ created: row.event_created, rank: row.ordering_rank, eventId: row.event_id });
  const claimable = (row: Row, now: number) =>
    (row.status === 'pending' && row.next_attempt_at <= now) || (row.status === 'processing' && row.lease_until <= now);
  const heldBack = (row: Row, now: number) =>
    row.ordering_key !== null &&
    [...rows.values()].some(
      (other) =>
        other.ordering_key === row.ordering_key &&
        other.event_id !== row.event_id &&
        ((other.status === 'processing' && other.lease_until > now) ||
          ((other.status === 'pending' || other.status === 'processing') && compareVersions(order(other), order(row)) < 0)),
    );
  const owned = (eventId: string, token: string) => {
    const row = rows.get(eventId);
    return row?.status === 'processing' && row.token === token ? row : undefined;
  };

  function enqueue(input: InboxInput): EnqueueResult {
    const existing = rows.get(input.eventId);
    if (existing || isRecorded(input.eventId)) {
      const requeued = existing?.status === 'dead';
      if (existing && requeued) Object.assign(existing, { status: 'pending', attempts: 0, next_attempt_at: input.receivedAt });
      return { status: 'duplicate', requeued };
    }
    rows.set(input.eventId, {
      ...insertedColumns(input),
      status: 'pending',
      attempts: 0,
      next_attempt_at: input.receivedAt,
      token: null,
      lease_until: 0,
      last_error_code: null,
      last_error_message: null,
      stale: false,
      completed_at: null,
    });
    return { status: 'queued' };
  }

  function stats(now: number): InboxStats {
    const counts = { pending: 0, processing: 0, done: 0, dead: 0 };
    let oldest: number | null = null;
    for (const row of rows.values()) {
      counts[row.status]++;
      if (row.status === 'pending' && (oldest === null || row.received_at < oldest)) oldest = row.received_at;
    }
    return inboxStats(counts, oldest, now);
  }

  return {
    enqueue: (input) => Promise.resolve(enqueue(input)),
    claim(now, leaseMs, limit) {
      const token = crypto.randomUUID();
      const due = [...rows.values()]
        .filter((row) => claimable(row, now) && !heldBack(row, now))
        .sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.received_at - b.received_at)
        .slice(0, limit);
      for (const row of due) Object.assign(row, { status: 'processing', token, lease_until: now + leaseMs, attempts: row.attempts + 1 });
      return Promise.resolve(due.map((row) => toClaimed(row, token)));
    },
    complete(eventId, token, now, completion = {}) {
      const row = owned(eventId, token);
      if (!row) return Promise.resolve(false);
      // Effects need a SQL transaction: memoryStore offers none, so the receiver refuses atomic() before this.
      Object.assign(row, { status: 'done', completed_at: now, stale: completion.stale ?? false, lease_until: 0, last_error_code: null, last_error_message: null });
      if (completion.version) versions.record(completion.version, now);
      return Promise.resolve(true);
    },
    fail(eventId, token, failure) {
      const row = owned(eventId, token);
      if (!row) return Promise.resolve(false);
      Object.assign(row, {
        status: failure.retryAt === null ? 'dead' : 'pending',
        next_attempt_at: failure.retryAt ?? 0,
        lease_until: 0,
        last_error_code: failure.code,
        last_error_message: failure.message,
      });
      return Promise.resolve(true);
    },
    release(eventId, token) {
      const row = owned(eventId, token);
      if (row) Object.assign(row, { status: 'pending', lease_until: 0, attempts: Math.max(0, row.attempts - 1) });
      return Promise.resolve(row !== undefined);
    },
    nextDueAt() {
      const times = [...rows.values()].filter((row) => row.status === 'pending' || row.status === 'processing').map((row) => (row.status === 'pending' ? row.next_attempt_at : row.lease_until));
      return Promise.resolve(times.length === 0 ? null : Math.min(...times));
    },
    list(filter = {}) {
      const matching = [...rows.values()]
        .filter((row) => (!filter.status || row.status === filter.status) && (!filter.type || row.event_type === filter.type))
        .sort((a, b) => b.received_at - a.received_at || (a.event_id < b.event_id ? -1 : 1))
        .slice(0, filter.limit ?? DEFAULT_INBOX_LIST_LIMIT);
      return Promise.resolve(matching.map(toInboxEvent));
    },
    get(eventId) {
      const row = rows.get(eventId);
      return Promise.resolve(row ? toInboxEvent(row) : undefined);
    },
    retry(eventId, now) {
      const row = rows.get(eventId);
      if (!row || (row.status !== 'dead' && row.status !== 'pending')) return Promise.resolve(undefined);
      Object.assign(row, { status: 'pending', attempts: 0, next_attempt_at: now, token: null });
      return Promise.resolve(toInboxEvent(row));
    },
    purge(status, before) {
      let removed = 0;
      for (const [id, row] of rows) if (row.status === status && row.received_at < before && rows.delete(id)) removed++;
      return Promise.resolve(removed);
    },
    stats: (now) => Promise.resolve(stats(now)),
    rows: () => rows.values(),
    row: (eventId) => rows.get(eventId),
    prune(before) {
      for (const [id, row] of rows) if (row.status === 'done' && row.completed_at !== null && row.completed_at <= before) rows.delete(id);
    },
  };
}
