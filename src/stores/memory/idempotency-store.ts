import { checkOptions, strictObject } from '../../kernel/options-check.js';
import { newId } from '../../kernel/ids.js';
import { retentionShape } from '../../ports/store-options.js';
import { memoryInbox, memoryVersions } from './inbox.js';
import { memoryCatchUp } from './catch-up.js';
import { memoryReceivedReads } from './received-reads.js';
import { offerReceivedReads } from '../../ports/received-reads.js';
import { quarantineKey } from '../../ports/quarantine-key.js';
import {
  DEFAULT_RETENTION_MS,
  type ClaimOptions,
  type ClaimResult,
  type IdempotencyStore,
  type QuarantinedEvent,
  type QuarantineInput,
  type QuarantineStore,
  type StoreOptions,
} from '../../ports/idempotency-store.js';
import { isoString } from '../../kernel/iso-string.js';

const memoryStoreOptions = strictObject(retentionShape);

interface Entry {
  state: 'processing' | 'completed';
  token: string;
  leaseUntil: number;
  completedAt: number;
  /** When the first delivery claimed it. */
  firstSeenAt: number;
}

/**
 * An in-process store: for tests and single-process development. It forgets everything on
 * restart, so a redelivery after a restart runs the handlers again — use `sqliteStore` in
 * production.
 *
 * @throws ConfigurationError for an unknown option or a retention under 35 hours
 * @example
 * app.use(webhookHandler({ secret, store: memoryStore() }));
 */
export function memoryStore(options: StoreOptions = {}): IdempotencyStore {
  const retentionMs = checkOptions(memoryStoreOptions, options, 'memoryStore').retentionMs ?? DEFAULT_RETENTION_MS;
  const entries = new Map<string, Entry>();
  const versions = memoryVersions();
  const inbox = memoryInbox(versions, (eventId) => entries.has(eventId));
  const quarantine = memoryQuarantine();

  return offerReceivedReads<IdempotencyStore>({
    retentionMs,
    ready: () => Promise.resolve(),
    quarantine,
    versions,
    inbox,
    catchUp: memoryCatchUp({ record: (eventId) => entries.get(eventId), inboxRow: (eventId) => inbox.row(eventId), quarantine }),
    claim(eventId: string, { now, leaseMs }: ClaimOptions): Promise<ClaimResult> {
      const entry = entries.get(eventId);
      if (entry?.state === 'completed') return Promise.resolve({ status: 'completed', completedAt: entry.completedAt });
      if (entry && entry.leaseUntil > now) return Promise.resolve({ status: 'in_progress', leaseExpiresAt: entry.leaseUntil });
      const token = crypto.randomUUID();
      entries.set(eventId, { state: 'processing', token, leaseUntil: now + leaseMs, completedAt: 0, firstSeenAt: entry?.firstSeenAt ?? now });
      return Promise.resolve({ status: 'claimed', token, takeover: entry !== undefined });
    },
    complete(eventId, token, now, options): Promise<boolean> {
      const entry = entries.get(eventId);
      if (entry?.state !== 'processing' || entry.token !== token) return Promise.resolve(false);
      entries.set(eventId, { ...entry, state: 'completed', leaseUntil: 0, completedAt: now });
      if (options?.version) versions.record(options.version, now);
      return Promise.resolve(true);
    },
    release(eventId: string, token: string): Promise<boolean> {
      const entry = entries.get(eventId);
      if (entry?.state !== 'processing' || entry.token !== token) return Promise.resolve(false);
      entry.leaseUntil = 0;
      return Promise.resolve(true);
    },
    prune(now: number): Promise<number> {
      versions.prune(now - retentionMs);
      inbox.prune(now - retentionMs);
      let removed = 0;
      for (const [id, entry] of entries) {
        if (entry.state === 'completed' && entry.completedAt <= now - retentionMs) {
          entries.delete(id);
          removed++;
        }
      }
      return Promise.resolve(removed);
    },
    close: () => Promise.resolve(),
  }, memoryReceivedReads({ inboxRows: () => inbox.rows(), records: () => entries.values(), quarantine }));
}

function memoryQuarantine(): QuarantineStore {
  const byKey = new Map<string, QuarantinedEvent>();
  const find = (id: string) => [...byKey.values()].find((entry) => entry.id === id);
  return {
    put(input: QuarantineInput): Promise<QuarantinedEvent> {
      const key = quarantineKey(input);
      const existing = byKey.get(key);
      const entry: QuarantinedEvent = existing
        ? { ...existing, ...fields(input), last_received_at: isoString(input.received_at), deliveries: existing.deliveries + 1 }
        : { id: newId('qev'), ...fields(input), first_received_at: isoString(input.received_at), last_received_at: isoString(input.received_at), deliveries: 1 };
      byKey.set(key, entry);
      return Promise.resolve(entry);
    },
    list(filter = {}): Promise<QuarantinedEvent[]> {
      return Promise.resolve([...byKey.values()].filter((entry) => !filter.reason || entry.reason === filter.reason));
    },
    get: (id) => Promise.resolve(find(id)),
    delete(id: string): Promise<boolean> {
      const entry = find(id);
      if (!entry) return Promise.resolve(false);
      byKey.delete(quarantineKey(entry));
      return Promise.resolve(true);
    },
  };
}

function fields(input: QuarantineInput) {
  return {
    reason: input.reason,
    event_id: input.event_id,
    event_type: input.event_type,
    error_code: input.error_code,
    error_message: input.error_message,
    raw_body: input.raw_body,
  };
}

