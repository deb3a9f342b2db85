import { newId } from '../../kernel/ids.js';
import { quarantineKey } from '../../ports/quarantine-key.js';
import { rowMapping, toPublicRecord } from '../../ports/fields.js';
import type { QuarantineInput, QuarantineStore } from '../../ports/idempotency-store.js';
import { QUARANTINE_FIELDS, type QuarantinedEvent } from '../../ports/quarantine-fields.js';
import { asPromise } from './as-promise.js';
import { SQLITE_CODECS } from './codecs.js';
import type { SqliteConnection } from './drivers.js';

const quarantineRows = rowMapping(QUARANTINE_FIELDS, SQLITE_CODECS);
const COLUMNS = quarantineRows.columns.join(', ');

/** A row as better-sqlite3 returns it. */
type QuarantineRow = Record<string, unknown>;

/**
 * Quarantined payloads in the store's SQLite file, keyed like every store's (event id, or the
 * body's hash): a redelivery of the same payload bumps `deliveries` in one upsert.
 */
export function sqliteQuarantine(db: SqliteConnection): QuarantineStore {
  const upsert = db.prepare<Record<string, unknown>, QuarantineRow>(`
    INSERT INTO acct_webhook_quarantine
      (id, key, reason, event_id, event_type, error_code, error_message, raw_body, first_received_at, last_received_at)
    VALUES (@id, @key, @reason, @event_id, @event_type, @error_code, @error_message, @raw_body, @received_at, @received_at)
    ON CONFLICT (key) DO UPDATE SET
      reason = excluded.reason, event_type = excluded.event_type, error_code = excluded.error_code,
      error_message = excluded.error_message, raw_body = excluded.raw_body,
      last_received_at = excluded.last_received_at, deliveries = deliveries + 1
    RETURNING ${COLUMNS}`);
  const byId = db.prepare<[string], QuarantineRow>(`SELECT ${COLUMNS} FROM acct_webhook_quarantine WHERE id = ?`);
  const all = db.prepare<[], QuarantineRow>(`SELECT ${COLUMNS} FROM acct_webhook_quarantine ORDER BY first_received_at, id`);
  const remove = db.prepare<[string]>('DELETE FROM acct_webhook_quarantine WHERE id = ?');
  return {
    put: (input: QuarantineInput) => asPromise(() => toEntry(upsert.get({ ...input, id: newId('qev'), key: quarantineKey(input) })!)),
    list: (filter = {}) => asPromise(() => all.all().map(toEntry).filter((entry) => !filter.reason || entry.reason === filter.reason)),
    get: (id) =>
      asPromise(() => {
        const row = byId.get(id);
        return row ? toEntry(row) : undefined;
      }),
    delete: (id) => asPromise(() => remove.run(id).changes === 1),
  };
}

function toEntry(row: QuarantineRow): QuarantinedEvent {
  return toPublicRecord(QUARANTINE_FIELDS, quarantineRows.read(row));
}
