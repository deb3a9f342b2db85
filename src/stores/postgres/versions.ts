import type { ObjectVersion, ObjectVersions } from '../../ports/versions.js';
import { int8, readInt8 } from './int8.js';
import type { PostgresQueryable } from './pool.js';
import { run, type Prepare } from './statement.js';
import { decodeText, encodeText } from './text-codec.js';

/**
 * Keeps a version as its object's newest when it is newer than what is kept, and only when
 * `condition` holds: for use inside a larger statement (the completion's), so that "done" and
 * the version commit together. The arguments are SQL parameter references (`$5` …).
 */
export function recordVersionSql(schema: string, [key, created, rank, eventId]: readonly string[], now: string, condition: string): string {
  const table = `${schema}.acct_webhook_object_versions`;
  return `INSERT INTO ${table} AS v (ordering_key, event_created, ordering_rank, event_id, updated_at)
    SELECT ${key}::text, ${created}::bigint, ${rank}::int, ${eventId}::text, ${now}::bigint WHERE ${key}::text IS NOT NULL AND ${condition}
    ON CONFLICT (ordering_key) DO UPDATE SET event_created = EXCLUDED.event_created, ordering_rank = EXCLUDED.ordering_rank,
      event_id = EXCLUDED.event_id, updated_at = EXCLUDED.updated_at
    WHERE (EXCLUDED.event_created, EXCLUDED.ordering_rank, EXCLUDED.event_id COLLATE "C") > (v.event_created, v.ordering_rank, v.event_id COLLATE "C")`;
}

/** The values of a version for {@link recordVersionSql}'s four parameters. */
export function versionValues(version: ObjectVersion | null | undefined): unknown[] {
  return version ? [encodeText(version.key), int8(version.created, 'created'), version.rank, encodeText(version.eventId)] : [null, null, null, null];
}

export function postgresVersions(pool: PostgresQueryable, schema: string, { ready, prepare }: { ready: () => Promise<void>; prepare: Prepare }): ObjectVersions {
  const newest = prepare(`SELECT event_created, ordering_rank, event_id FROM ${schema}.acct_webhook_object_versions WHERE ordering_key = $1`);
  return {
    async newest(key) {
      await ready();
      const [row] = (await run(pool, newest, [encodeText(key)])).rows as { event_created: unknown; ordering_rank: number; event_id: string }[];
      return row ? { key, created: readInt8(row.event_created, 'event_created'), rank: row.ordering_rank, eventId: decodeText(row.event_id) } : undefined;
    },
  };
}
