import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, createReceiver, Webhooks } from '../../../src/index.js';
import { MIN_RETENTION_MS } from '../../../src/ports/idempotency-store.js';
import { PRUNE_INTERVAL_MS } from '../../../src/ports/idempotency-store.js';
import { createTestEvent, signedRequest } from '../../../src/testing/index.js';
import { postgresStore, type PostgresPool } from '../../../src/stores/postgres/index.js';
import { PostgresValueError } from '../../../src/stores/postgres/errors.js';
import type { PostgresQueryConfig } from '../../../src/stores/postgres/pool.js';
import { POSTGRES_URL, useTestDatabase } from '../../helpers/postgres.js';
import { OUTCOME_TIMEOUT_MS } from '../../helpers/patience.js';

const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);
const LEASE = 30_000;
const SECRET = 'whsec_postgresStoreTest000000000000';

describe('postgresStore on PostgreSQL', () => {
  const database = useTestDatabase();

  /** `count` pools of their own (separate connections, as separate processes have), ended afterwards. */
  async function withPools<T>(count: number, body: (pools: pg.Pool[]) => Promise<T>): Promise<T> {
    const pools = Array.from({ length: count }, () => new pg.Pool({ connectionString: POSTGRES_URL, max: 4 }));
    try {
      return await body(pools);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  }

  describe('claims race across connections', () => {
    it('of 40 concurrent claims of one new event id, exactly one wins', async () => {
      const schema = database.newSchema();
      await postgresStore(database.pool, { schema }).ready();
      const results = await withPools(4, (pools) =>
        Promise.all(Array.from({ length: 40 }, (_, i) => postgresStore(pools[i % 4]!, { schema }).claim('evt_race', { now: T0, leaseMs: LEASE }))),
      );
      expect(results.filter((result) => result.status === 'claimed')).toHaveLength(1);
      expect(results.filter((result) => result.status === 'in_progress')).toEqual(Array(39).fill({ status: 'in_progress', leaseExpiresAt: T0 + LEASE }));
    });

    it('of 40 concurrent takeovers of one expired lease, exactly one wins, and only its token completes', async () => {
      const schema = database.newSchema();
      const store = postgresStore(database.pool, { schema });
      const crashed = await store.claim('evt_race', { now: T0, leaseMs: LEASE });
      const later = T0 + LEASE;
      const results = await withPools(4, (pools) =>
        Promise.all(Array.from({ length: 40 }, (_, i) => postgresStore(pools[i % 4]!, { schema }).claim('evt_race', { now: later, leaseMs: LEASE }))),
      );
      const winners = results.filter((result) => result.status === 'claimed');
      expect(winners).toEqual([{ status: 'claimed', token: expect.any(String), takeover: true }]);
      if (crashed.status !== 'claimed' || winners[0]?.status !== 'claimed') throw new Error('not claimed');
      expect(await store.complete('evt_race', crashed.token, later + 1)).toBe(false);
      expect(await store.complete('evt_race', winners[0].token, later + 2)).toBe(true);
      expect(await store.claim('evt_race', { now: later + 3, leaseMs: LEASE })).toEqual({ status: 'completed', completedAt: later + 2 });
    });
  });

  describe('claims and completions of one event-loop turn share a statement', () => {
    /**
     * The shared pool, with the claims and completions that reach it counted by their first
     * word (the hourly prune, which deletes in the background, is left out); `fail` may refuse one.
     */
    function countingPool(fail?: (verb: string) => Error | undefined): { pool: PostgresPool; statements: string[] } {
      const statements: string[] = [];
      const pool: PostgresPool = {
        query: (config: string | PostgresQueryConfig, values?: unknown[]) => {
          const text = typeof config === 'string' ? config : config.text;
          const verb = text.trim().split(/\s+/)[0]!;
          if (!text.includes('DELETE FROM')) statements.push(verb);
          const error = fail?.(verb);
          return error ? Promise.reject(error) : database.pool.query(config, values);
        },
        connect: () => database.pool.connect(),
        end: () => Promise.resolve(),
      };
      return { pool, statements };
    }

    it('50 deliveries arriving together cost one claim statement and one completion statement', async () => {
      const schema = database.newSchema();
      await postgresStore(database.pool, { schema }).ready();
      const { pool, statements } = countingPool();
      const store = postgresStore(pool, { schema });
      await store.ready();
      statements.length = 0;
      const ids = Array.from({ length: 50 }, (_, i) => `evt_${i}`);
      const claims = await Promise.all(ids.map((id) => store.claim(id, { now: T0, leaseMs: LEASE })));
      expect(statements).toEqual(['INSERT']);
      const completed = await Promise.all(ids.map((id, i) => store.complete(id, claims[i]?.status === 'claimed' ? claims[i].token : '', T0 + 1)));
      expect(completed).toEqual(Array(50).fill(true));
      expect(statements).toEqual(['INSERT', 'UPDATE']);
    });

    it('a failed statement fails every claim of its batch, stores none of them, and the next batch runs', async () => {
      const schema = database.newSchema();
      let failures = 0;
      const { pool } = countingPool((verb) => (verb === 'INSERT' && failures-- > 0 ? Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' }) : undefined));
      const store = postgresStore(pool, { schema });
      await store.ready();
      failures = 1;
      const failed = await Promise.allSettled(['evt_a', 'evt_b', 'evt_a'].map((id) => store.claim(id, { now: T0, leaseMs: LEASE })));
      expect(failed.map((result) => result.status === 'rejected' && (result.reason as { code?: string }).code)).toEqual(['57P01', '57P01', '57P01']);
      // Nothing of the batch was stored: the sender's retry claims them afresh.
      const retried = await Promise.all(['evt_a', 'evt_b'].map((id) => store.claim(id, { now: T0 + 1, leaseMs: LEASE })));
      expect(retried).toEqual(Array(2).fill({ status: 'claimed', token: expect.any(String), takeover: false }));
    });

    it('two processes claiming the same 30 ids in opposite orders, in batches, each claim one id once and never deadlock', async () => {
      const schema = database.newSchema();
      await postgresStore(database.pool, { schema }).ready();
      const ids = Array.from({ length: 30 }, (_, i) => `evt_${String(i).padStart(2, '0')}`);
      const results = await withPools(2, (pools) =>
        Promise.all(
          pools.map((pool, p) => {
            const store = postgresStore(pool, { schema });
            const order = p === 0 ? ids : [...ids].reverse();
            return Promise.all(order.map((id) => store.claim(id, { now: T0, leaseMs: LEASE }).then((result) => ({ id, result }))));
          }),
        ),
      );
      const claimed = results.flat().filter(({ result }) => result.status === 'claimed').map(({ id }) => id);
      expect(claimed.sort()).toEqual(ids);
    });
  });

  describe('keys and times', () => {
    it('keeps event ids apart that PostgreSQL text alone would merge or refuse (NUL, unpaired surrogates)', async () => {
      const store = postgresStore(database.pool, { schema: database.newSchema() });
      const ids = ['evt_\u0000', 'evt_\ud800', 'evt_\udbff', 'evt_\ufffd', '\u0001"evt_\u0000"'];
      const claims = await Promise.all(ids.map((id) => store.claim(id, { now: T0, leaseMs: LEASE })));
      expect(claims.map((claim) => claim.status)).toEqual(ids.map(() => 'claimed'));
      const first = claims[0]!;
      if (first.status !== 'claimed') throw new Error('not claimed');
      expect(await store.complete(ids[0]!, first.token, T0 + 1)).toBe(true);
      expect(await store.claim(ids[0]!, { now: T0 + 2, leaseMs: LEASE })).toEqual({ status: 'completed', completedAt: T0 + 1 });
      expect(await store.claim(ids[3]!, { now: T0 + 2, leaseMs: LEASE })).toMatchObject({ status: 'in_progress' });
    });

    it('keeps milliseconds exact far in the future, and refuses a clock that returns fractions', async () => {
      const store = postgresStore(database.pool, { schema: database.newSchema() });
      const far = Date.UTC(2262, 3, 11, 23, 47, 16, 854);
      await store.claim('evt_far', { now: far, leaseMs: LEASE });
      expect(await store.claim('evt_far', { now: far + 1, leaseMs: LEASE })).toEqual({ status: 'in_progress', leaseExpiresAt: far + LEASE });
      await expect(store.claim('evt_fraction', { now: T0 + 0.5, leaseMs: LEASE })).rejects.toBeInstanceOf(PostgresValueError);
    });
  });

  describe('retention', () => {
    it('prunes expired records as claims come in, at most hourly, without the claim waiting for it', async () => {
      const schema = database.newSchema();
      const store = postgresStore(database.pool, { schema, retentionMs: MIN_RETENTION_MS });
      for (const [id, at] of [['evt_a', T0], ['evt_b', T0 + 1]] as const) {
        const claim = await store.claim(id, { now: at, leaseMs: LEASE });
        if (claim.status !== 'claimed') throw new Error('not claimed');
        await store.complete(id, claim.token, at);
      }
      const ids = async (): Promise<string[]> =>
        (await database.pool.query<{ event_id: string }>(`SELECT event_id FROM "${schema}".acct_webhook_events ORDER BY event_id`)).rows.map((row) => row.event_id);
      const eventually = async (expected: string[]): Promise<void> => {
        const deadline = Date.now() + OUTCOME_TIMEOUT_MS;
        while (JSON.stringify(await ids()) !== JSON.stringify(expected) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
        expect(await ids()).toEqual(expected);
      };

      const pruneAt = T0 + MIN_RETENTION_MS; // evt_a has expired, evt_b not yet
      await store.claim('evt_c', { now: pruneAt, leaseMs: LEASE });
      await eventually(['evt_b', 'evt_c']);
      await store.claim('evt_d', { now: pruneAt + 10, leaseMs: LEASE }); // evt_b has expired, but the last prune was 10 ms ago
      expect(await ids()).toEqual(['evt_b', 'evt_c', 'evt_d']);
      await store.claim('evt_e', { now: pruneAt + PRUNE_INTERVAL_MS, leaseMs: LEASE });
      await eventually(['evt_c', 'evt_d', 'evt_e']);
    });
  });

  describe('migrations and schemas', () => {
    it('creates a missing schema (any case) once; a second store on it applies nothing', async () => {
      const schema = `Mixed_${database.newSchema()}`;
      database.adopt(schema);
      const first = postgresStore(database.pool, { schema });
      await Promise.all([first.ready(), first.ready(), postgresStore(database.pool, { schema }).ready()]);
      const rows = await database.pool.query(`SELECT component, version FROM "${schema}".acct_webhook_migrations ORDER BY version`);
      expect(rows.rows).toEqual([
        { component: 'idempotency', version: 1 },
        { component: 'idempotency', version: 2 },
        { component: 'idempotency', version: 3 },
        { component: 'idempotency', version: 4 },
        { component: 'idempotency', version: 5 },
        { component: 'idempotency', version: 6 },
      ]);
      expect(await first.claim('evt_1', { now: T0, leaseMs: LEASE })).toMatchObject({ status: 'claimed' });
    });

    it('refuses a schema written by a newer version, with a configuration error', async () => {
      const schema = database.newSchema();
      await postgresStore(database.pool, { schema }).ready();
      await database.pool.query(`INSERT INTO "${schema}".acct_webhook_migrations (component, version) VALUES ('idempotency', 99)`);
      const store = postgresStore(database.pool, { schema });
      await expect(store.ready()).rejects.toBeInstanceOf(ConfigurationError);
      await expect(store.claim('evt_1', { now: T0, leaseMs: LEASE })).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option: 'schema', reason: expect.stringContaining('version 99') } });
    });
  });

  describe('when the database is away', () => {
    it('the receiver answers 503 (the sender retries), never 200, and runs no handler', async () => {
      const store = postgresStore('postgres://app:secret@127.0.0.1:1/app', { connectTimeoutMs: 1_000 });
      const handled: string[] = [];
      const handlers = new Webhooks().onAny((event) => {
        handled.push(event.id);
      });
      const receiver = createReceiver({ secret: SECRET, store, logger: false, handlers });
      const request = signedRequest(createTestEvent('invoice.paid'), SECRET);
      const response = await receiver.receive({ rawBody: request.body, headers: request.headers, method: 'POST' });
      expect(response.status).toBe(503);
      expect(JSON.stringify(response.body)).not.toContain('secret');
      expect(handled).toEqual([]);
      await receiver.close();
    });

    it('tries the migrations again on the next call once it is back; a pool that was passed in stays open on close', async () => {
      let down = true;
      const flaky: PostgresPool = {
        query: (text: string | PostgresQueryConfig, values?: unknown[]) =>
          down ? Promise.reject(new Error('connection refused')) : database.pool.query(text, values),
        connect: () => (down ? Promise.reject(new Error('connection refused')) : database.pool.connect()),
        end: () => Promise.reject(new Error('a pool that was passed in must not be ended')),
      };
      const store = postgresStore(flaky, { schema: database.newSchema() });
      await expect(store.claim('evt_1', { now: T0, leaseMs: LEASE })).rejects.toThrow('connection refused');
      down = false;
      expect(await store.claim('evt_1', { now: T0, leaseMs: LEASE })).toMatchObject({ status: 'claimed', takeover: false });
      await store.close();
    });
  });
});
