import { newId } from '../../kernel/ids.js';
import { quarantineKey } from '../../ports/quarantine-key.js';
import { rowMapping, toPublicRecord } from '../../ports/fields.js';
import type { QuarantineInput, QuarantineStore } from '../../ports/idempotency-store.js';
import { QUARANTINE_FIELDS, type QuarantinedEvent } from '../../ports/quarantine-fields.js';
import { POSTGRES_CODECS } from './codecs.js';
import { int8 } from './int8.js';
import type { PostgresQueryable } from './pool.js';
import { run, type Prepare, type Statement } from './statement.js';
import { encodeNullableText, encodeText } from './text-codec.js';

const quarantineRows = rowMapping(QUARANTINE_FIELDS, POSTGRES_CODECS);
const COLUMNS = quarantineRows.columns.join(', ');

/** A row as pg returns it. */
type QuarantineRow = Record<string, unknown>;

/**
 * Quarantined payloads in PostgreSQL, keyed like every store's (event id, or the body's hash): a
 * redelivery of the same payload bumps `deliveries` in one upsert. The raw bytes are a bytea.
 */
export function postgresQuarantine(pool: PostgresQueryable, table: string, { ready, prepare }: { ready: () => Promise<void>; prepare: Prepare }): QuarantineStore {
  const sql = {
    put: prepare(`INSERT INTO ${table} AS q
        (id, key, reason, event_id, event_type, error_code, error_message, raw_body, first_received_at, last_received_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
      ON CONFLICT (key) DO UPDATE SET
        reason = EXCLUDED.reason, event_type = EXCLUDED.event_type, error_code = EXCLUDED.error_code,
        error_message = EXCLUDED.error_message, raw_body = EXCLUDED.raw_body,
        last_received_at = EXCLUDED.last_received_at, deliveries = q.deliveries + 1
      RETURNING ${COLUMNS}`),
    list: prepare(`SELECT ${COLUMNS} FROM ${table} WHERE $1::text IS NULL OR reason = $1 ORDER BY first_received_at, id`),
    get: prepare(`SELECT ${COLUMNS} FROM ${table} WHERE id = $1`),
    delete: prepare(`DELETE FROM ${table} WHERE id = $1 RETURNING id`),
  };
  const query = async (statement: Statement, values: unknown[]): Promise<QuarantineRow[]> => {
    await ready();
    return (await run(pool, statement, values)).rows as QuarantineRow[];
  };
  return {
    async put(input: QuarantineInput): Promise<QuarantinedEvent> {
      const [row] = await query(sql.put, [
        newId('qev'),
        encodeText(quarantineKey(input)),
        input.reason,
        encodeNullableText(input.event_id),
        encodeNullableText(input.event_type),
        encodeText(input.error_code),
        encodeText(input.error_message),
        input.raw_body,
        int8(input.received_at, 'received_at'),
      ]);
      return toEntry(row!);
    },
    async list(filter = {}): Promise<QuarantinedEvent[]> {
      return (await query(sql.list, [filter.reason ?? null])).map(toEntry);
    },
    async get(id: string): Promise<QuarantinedEvent | undefined> {
      // Encoded like stored text, so that an id no row can have finds nothing instead of failing.
      const [row] = await query(sql.get, [encodeText(id)]);
      return row && toEntry(row);
    },
    async delete(id: string): Promise<boolean> {
      return (await query(sql.delete, [encodeText(id)])).length === 1;
    },
  };
}

function toEntry(row: QuarantineRow): QuarantinedEvent {
  return toPublicRecord(QUARANTINE_FIELDS, quarantineRows.read(row));
}
