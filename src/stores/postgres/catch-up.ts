import { inboxState, mergeState, recordState, type CatchUpCheckpoint, type CatchUpStore, type ReceivedState } from '../../ports/catch-up.js';
import { int8, nullableInt8, readInt8, readNullableInt8 } from './int8.js';
import type { PostgresQueryable } from './pool.js';
import { run, type Prepare, type Statement } from './statement.js';
import { decodeNullableText, decodeText, encodeNullableText, encodeText } from './text-codec.js';

/** Catch-up's checkpoints in the store's schema, and the states of event ids (one statement per table for a page of ids). */
export function postgresCatchUp(pool: PostgresQueryable, schema: string, { ready, prepare }: { ready: () => Promise<void>; prepare: Prepare }): CatchUpStore {
  const table = `${schema}.acct_webhook_catch_up`;
  const sql = {
    get: prepare(`SELECT name, cursor, last_event_id, last_event_created, updated_at FROM ${table} WHERE name = $1`),
    save: prepare(`INSERT INTO ${table} (name, cursor, last_event_id, last_event_created, updated_at) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (name) DO UPDATE SET cursor = EXCLUDED.cursor, last_event_id = EXCLUDED.last_event_id,
        last_event_created = EXCLUDED.last_event_created, updated_at = EXCLUDED.updated_at`),
    delete: prepare(`DELETE FROM ${table} WHERE name = $1`),
    records: prepare(`SELECT event_id, state, lease_until FROM ${schema}.acct_webhook_events WHERE event_id = ANY($1::text[])`),
    inbox: prepare(`SELECT event_id, status FROM ${schema}.acct_webhook_inbox WHERE event_id = ANY($1::text[])`),
    quarantine: prepare(`SELECT DISTINCT event_id FROM ${schema}.acct_webhook_quarantine WHERE event_id = ANY($1::text[])`),
  };
  const query = async (statement: Statement, values: unknown[]) => {
    await ready();
    return run(pool, statement, values);
  };
  return {
    async checkpoint(name) {
      const [row] = (await query(sql.get, [encodeText(name)])).rows as Record<string, unknown>[];
      if (!row) return undefined;
      return {
        name: decodeText(row.name as string),
        cursor: decodeText(row.cursor as string),
        last_event_id: decodeNullableText(row.last_event_id as string | null),
        last_event_created: readNullableInt8(row.last_event_created, 'last_event_created'),
        updated_at: readInt8(row.updated_at, 'updated_at'),
      };
    },
    async saveCheckpoint(checkpoint: CatchUpCheckpoint) {
      await query(sql.save, [
        encodeText(checkpoint.name),
        encodeText(checkpoint.cursor),
        encodeNullableText(checkpoint.last_event_id),
        nullableInt8(checkpoint.last_event_created, 'last_event_created'),
        int8(checkpoint.updated_at, 'updated_at'),
      ]);
    },
    async deleteCheckpoint(name) {
      return ((await query(sql.delete, [encodeText(name)])).rowCount ?? 0) === 1;
    },
    async receivedStates(eventIds, now) {
      const ids = eventIds.map(encodeText);
      const found = new Map<string, ReceivedState>();
      const records = (await query(sql.records, [ids])).rows as { event_id: string; state: 'processing' | 'completed'; lease_until: unknown }[];
      for (const row of records) mergeState(found, decodeText(row.event_id), recordState(row.state, readInt8(row.lease_until, 'lease_until'), now));
      const inbox = (await query(sql.inbox, [ids])).rows as { event_id: string; status: 'pending' | 'processing' | 'done' | 'dead' }[];
      for (const row of inbox) mergeState(found, decodeText(row.event_id), inboxState(row.status));
      const quarantined = (await query(sql.quarantine, [ids])).rows as { event_id: string }[];
      for (const row of quarantined) mergeState(found, decodeText(row.event_id), 'quarantined');
      return found;
    },
  };
}
