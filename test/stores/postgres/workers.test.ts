import type { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/dispatcher.js';
import { postgresDispatchStore } from '../../../src/stores/postgres/index.js';
import { createTestEvent } from '../../../src/testing/index.js';
import { useTestDatabase, type TestDatabase } from '../../helpers/postgres.js';
import { close, eventDeliveries, listen, type RunningServer } from '../../helpers/server.js';
import { ChildScript } from './child-process.js';
import { OUTCOME_TIMEOUT_MS } from '../../helpers/patience.js';

const fixture = resolve(import.meta.dirname, '../..', 'fixtures', 'postgres-dispatch-worker.mjs');
const DELIVERIES = 5_000;
const CONCURRENCY = 16;
/** Short, so that a dead worker's lease ends soon: a live attempt ends (times out) well before its lease. */
const TIMEOUT_MS = 1_000;
const LEASE_MS = 3_000;

/** A receiver that records every request's event id and answers 204 — or holds answers back while `holding`. */
class HoldingReceiver {
  readonly eventIds: string[] = [];
  holding = false;
  private held: ServerResponse[] = [];
  private server: RunningServer | null = null;

  async start(): Promise<string> {
    this.server = await listen(
      eventDeliveries((id, res) => {
        this.eventIds.push(id);
        if (this.holding) this.held.push(res);
        else res.writeHead(204).end();
      }),
    );
    return this.server.url;
  }

  get heldCount(): number {
    return this.held.length;
  }

  /** Answers everything held (a dead worker's connections are gone: those answers go nowhere). */
  release(): void {
    this.holding = false;
    for (const res of this.held) res.writeHead(204).end();
    this.held = [];
  }

  async stop(): Promise<void> {
    if (this.server) await close(this.server.server);
  }
}

/** Polls `condition` until it holds, or fails after `timeoutMs`. */
async function until(condition: () => Promise<boolean> | boolean, description: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

/** A webhook to `url` and DELIVERIES due deliveries to it, stored through a Dispatcher that does not send. */
async function queueDeliveries(database: TestDatabase, schema: string, url: string): Promise<void> {
  const dispatcher = new Dispatcher({ store: postgresDispatchStore(database.pool, { schema }), allowInsecureUrls: true, logger: false });
  await dispatcher.webhooks.create({ url, events: ['*'] });
  for (let i = 0; i < DELIVERIES; i += 100) {
    await Promise.all(Array.from({ length: 100 }, () => dispatcher.emit(createTestEvent('payment.received'))));
  }
  await dispatcher.close();
}

async function count(database: TestDatabase, sql: string, params: unknown[] = []): Promise<number> {
  return (await database.pool.query<{ n: number }>(sql, params)).rows[0]!.n;
}

describe('two dispatcher worker processes on one PostgreSQL schema', () => {
  const database = useTestDatabase({ poolSize: 4 });
  let workers: ChildScript[] = [];
  let receiver = new HoldingReceiver();
  beforeEach(() => {
    receiver = new HoldingReceiver();
  });
  afterEach(async () => {
    receiver.release();
    await Promise.all(workers.map((worker) => worker.stop()));
    await receiver.stop();
  });

  async function startWorkers(schema: string): Promise<ChildScript[]> {
    workers = [0, 1].map(() => ChildScript.start(fixture, [database.url, schema, String(TIMEOUT_MS), String(LEASE_MS), String(CONCURRENCY)]));
    await Promise.all(workers.map((worker) => worker.line((line) => line.ready === true, 'the worker to start')));
    return workers;
  }

  it(`drain ${DELIVERIES} deliveries: each attempt sent once, none lost, both sharing the work`, async () => {
    const schema = database.newSchema();
    const url = await receiver.start();
    await queueDeliveries(database, schema, url);
    const [a, b] = await startWorkers(schema);
    const delivered = `SELECT COUNT(*)::int AS n FROM "${schema}".dispatch_deliveries WHERE status = 'delivered'`;
    await until(async () => (await count(database, delivered)) === DELIVERIES, `${DELIVERIES} delivered`, OUTCOME_TIMEOUT_MS);
    expect([await a!.stop(), await b!.stop()]).toEqual([0, 0]);

    const attempts = workers.map((worker) => worker.lines.at(-1)!.attempts as number);
    expect(attempts[0]! + attempts[1]!).toBe(DELIVERIES);
    expect(Math.min(...attempts)).toBeGreaterThan(0);
    expect(receiver.eventIds).toHaveLength(DELIVERIES);
    expect(new Set(receiver.eventIds).size).toBe(DELIVERIES);
    expect(await count(database, `SELECT COUNT(*)::int AS n FROM "${schema}".dispatch_attempts WHERE attempt_number = 1`)).toBe(DELIVERIES);
    expect(await count(database, `SELECT COUNT(*)::int AS n FROM "${schema}".dispatch_attempts`)).toBe(DELIVERIES);
  });

  it('lose nothing when one is killed mid-run: its leased attempts are sent again by the other once the leases end', async () => {
    const schema = database.newSchema();
    const url = await receiver.start();
    await queueDeliveries(database, schema, url);
    const [doomed, survivor] = await startWorkers(schema);
    const { owner } = await doomed!.line((line) => typeof line.owner === 'string', "the doomed worker's lease name");

    // Mid-run, answers are held back until both workers have every slot in flight; then one dies.
    await until(() => receiver.eventIds.length >= DELIVERIES / 4, 'a quarter of the deliveries', OUTCOME_TIMEOUT_MS);
    receiver.holding = true;
    await until(() => receiver.heldCount === 2 * CONCURRENCY, 'both workers to have every slot in flight', OUTCOME_TIMEOUT_MS);
    await doomed!.kill();
    const killedAt = Date.now();
    receiver.release();

    const stranded = await database.pool.query<{ id: string; event_id: string; lease_until: string }>(
      `SELECT id, event_id, lease_until FROM "${schema}".dispatch_deliveries WHERE lease_owner = $1 AND status = 'retrying'`,
      [owner],
    );
    expect(stranded.rows).toHaveLength(CONCURRENCY);

    const delivered = `SELECT COUNT(*)::int AS n FROM "${schema}".dispatch_deliveries WHERE status = 'delivered'`;
    await until(async () => (await count(database, delivered)) === DELIVERIES, `${DELIVERIES} delivered`, OUTCOME_TIMEOUT_MS);
    expect(await survivor!.stop()).toBe(0);

    // None lost, none recorded twice: one attempt row per delivery.
    expect(await count(database, `SELECT COUNT(*)::int AS n FROM "${schema}".dispatch_attempts`)).toBe(DELIVERIES);
    expect(new Set(receiver.eventIds).size).toBe(DELIVERIES);
    // The stranded ones were sent again, and not before their lease had ended.
    const retried = await database.pool.query<{ delivery_id: string; attempted_at: string }>(
      `SELECT delivery_id, attempted_at FROM "${schema}".dispatch_attempts WHERE delivery_id = ANY($1::text[])`,
      [stranded.rows.map((row) => row.id)],
    );
    const leaseEnd = new Map(stranded.rows.map((row) => [row.id, Number(row.lease_until)]));
    expect(Math.min(...leaseEnd.values())).toBeGreaterThan(killedAt); // the leases were still running when it died
    expect(retried.rows).toHaveLength(CONCURRENCY);
    expect(retried.rows.filter((row) => Number(row.attempted_at) < leaseEnd.get(row.delivery_id)!)).toEqual([]);
    // The only events that reached the receiver twice are those the dead worker had in flight.
    const seen = new Map<string, number>();
    for (const id of receiver.eventIds) seen.set(id, (seen.get(id) ?? 0) + 1);
    const twice = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
    expect(twice.sort()).toEqual(stranded.rows.map((row) => row.event_id).sort());
    expect(Math.max(...seen.values())).toBe(2);
  });
});
