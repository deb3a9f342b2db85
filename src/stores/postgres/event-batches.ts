import type { ClaimResult } from '../../ports/idempotency-store.js';
import { readInt8, readNullableInt8 } from './int8.js';
import type { PostgresPool } from './pool.js';
import { run, type Prepare } from './statement.js';
import { TurnBatch } from './turn-batch.js';

/** One claim, its values already encoded for the table (`key` is the stored event id). */
export interface ClaimRequest {
  key: string;
  token: string;
  leaseUntil: number;
  type: string | null;
  now: number;
}

/** One completion: the stored event id, the claim's token, the time. */
export interface CompletionRequest {
  key: string;
  token: string;
  now: number;
}

interface StateRow {
  event_id: string;
  state: 'processing' | 'completed';
  lease_until: unknown;
  completed_at: unknown;
}

/**
 * Group commit for the receiver's two writes on PostgreSQL: the claims submitted during one turn
 * of the event loop go to the server as one statement, and so do the completions — two round
 * trips for all the deliveries that arrived together instead of two per delivery. Each claim is
 * still one atomic upsert of its row (the statement's WHERE is re-checked on the row's newest
 * version under its lock), so of two deliveries of one event — in one batch, in two batches or
 * in two processes — exactly one gets the lease.
 */
export function eventBatches(pool: PostgresPool, events: string, prepare: Prepare, ready: () => Promise<void>) {
  const sql = statements(events, prepare);

  async function claimAll(requests: readonly ClaimRequest[]): Promise<ClaimResult[]> {
    await ready();
    // One row per id in a statement (PostgreSQL refuses to upsert a row twice in one), in one
    // order everywhere so that two batches lock their common rows in the same order.
    const firsts = new Map<string, ClaimRequest>();
    for (const request of requests) if (!firsts.has(request.key)) firsts.set(request.key, request);
    const unique = [...firsts.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const claimed = await run(pool, sql.claim, [
      unique.map((request) => request.key),
      unique.map((request) => request.token),
      unique.map((request) => request.leaseUntil),
      unique.map((request) => request.type),
      unique.map((request) => request.now),
    ]);
    const won = new Map((claimed.rows as { event_id: string; token: string; claims: number }[]).map((row) => [row.event_id, row]));
    const lost = unique.filter((request) => won.get(request.key)?.token !== request.token).map((request) => request.key);
    // Leased by another delivery or completed. A fresh statement, so it sees what the conflicting
    // transactions committed.
    const states = new Map(lost.length === 0 ? [] : ((await run(pool, sql.states, [lost])).rows as StateRow[]).map((row) => [row.event_id, row]));
    return requests.map((request): ClaimResult => {
      const first = firsts.get(request.key)!;
      const row = won.get(request.key);
      if (row?.token === first.token) {
        // A second delivery of the same event in the same batch finds the first one's lease.
        return request === first ? { status: 'claimed', token: request.token, takeover: row.claims > 1 } : { status: 'in_progress', leaseExpiresAt: first.leaseUntil };
      }
      const current = states.get(request.key);
      if (current?.state === 'completed') return { status: 'completed', completedAt: readNullableInt8(current.completed_at, 'completed_at') ?? 0 };
      // (Rarely it changed hands between the two statements: "in progress" sends the sender back.)
      return { status: 'in_progress', leaseExpiresAt: current ? readInt8(current.lease_until, 'lease_until') : request.now };
    });
  }

  async function completeAll(requests: readonly CompletionRequest[]): Promise<boolean[]> {
    await ready();
    const completed = await run(pool, sql.complete, [
      requests.map((request) => request.key),
      requests.map((request) => request.token),
      requests.map((request) => request.now),
    ]);
    // Stored keys never hold U+0000 (see text-codec.ts), so it separates key and token.
    const done = new Set((completed.rows as { event_id: string; token: string }[]).map((row) => `${row.event_id}\u0000${row.token}`));
    // The same completion twice in one batch: the first one completed it, the second finds it completed.
    return requests.map((request) => done.delete(`${request.key}\u0000${request.token}`));
  }

  return { claims: new TurnBatch(claimAll), completions: new TurnBatch(completeAll) };
}

function statements(events: string, prepare: Prepare) {
  return {
    // The single claim of idempotency-store.ts for many rows: a new id is inserted; an existing
    // one is taken over only while it is processing and its lease has run out (expired, or
    // released: lease_until = 0). PostgreSQL locks each conflicting row and re-checks the WHERE on
    // its newest version, so of two concurrent claims exactly one gets the row.
    claim: prepare(`INSERT INTO ${events} AS e (event_id, state, token, lease_until, event_type, first_seen_at)
      SELECT c.event_id, 'processing', c.token, c.lease_until, c.event_type, c.now
        FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::int8[]) AS c(event_id, token, lease_until, event_type, now)
      ON CONFLICT (event_id) DO UPDATE SET token = EXCLUDED.token, lease_until = EXCLUDED.lease_until, claims = e.claims + 1
        WHERE e.state = 'processing' AND e.lease_until <= EXCLUDED.first_seen_at
      RETURNING event_id, token, claims`),
    states: prepare(`SELECT event_id, state, lease_until, completed_at FROM ${events} WHERE event_id = ANY($1::text[])`),
    complete: prepare(`UPDATE ${events} AS e SET state = 'completed', completed_at = c.now, lease_until = 0
      FROM unnest($1::text[], $2::text[], $3::int8[]) AS c(event_id, token, now)
      WHERE e.event_id = c.event_id AND e.token = c.token AND e.state = 'processing'
      RETURNING e.event_id, e.token`),
  };
}
