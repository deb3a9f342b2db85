import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../src/index.js';
import { createTestEvent, signedHeaders } from '../../../src/testing/index.js';
import { useTestDatabase } from '../../helpers/postgres.js';
import { startChildServer, type ChildServer } from '../../helpers/processes.js';

const SECRET = 'whsec_postgresReceivers000000000000';
const EVENTS = 1_000;
const RECEIVERS = 3;
/** Deliveries in flight at once, across all receivers. */
const IN_FLIGHT = 48;
const fixture = resolve(import.meta.dirname, '../..', 'fixtures', 'postgres-receiver-process.mjs');

/** A small seeded generator (mulberry32), so that the scrambled order is the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Outcome {
  statuses: number[];
  duplicate: boolean;
}

/** Delivers like a sender that retries a 409 quickly: until the event is acknowledged. */
async function deliver(url: string, body: string): Promise<Outcome> {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await fetch(`${url}/webhooks`, { method: 'POST', body, headers: signedHeaders(body, SECRET) });
    const answer = (await response.json()) as { duplicate?: boolean };
    statuses.push(response.status);
    if (response.status === 200) return { statuses, duplicate: answer.duplicate === true };
    await new Promise((done) => setTimeout(done, 5));
  }
  throw new Error(`not acknowledged after 200 attempts: ${statuses.join(',')}`);
}

/**
 * Which receivers get which event: every event goes to at least two different processes (some to
 * all three, some twice to the same one). A quarter of the events are one group whose copies are
 * sent at the same moment; the rest are single deliveries. Groups are scrambled.
 */
function plan(bodies: string[], next: () => number): { body: string; receivers: number[] }[] {
  const groups: { body: string; receivers: number[] }[] = [];
  for (const body of bodies) {
    const first = Math.floor(next() * RECEIVERS);
    const targets = [first, (first + 1 + Math.floor(next() * (RECEIVERS - 1))) % RECEIVERS];
    if (next() < 0.3) targets.push(Math.floor(next() * RECEIVERS));
    if (next() < 0.25) groups.push({ body, receivers: targets });
    else for (const receiver of targets) groups.push({ body, receivers: [receiver] });
  }
  for (let i = groups.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [groups[i], groups[j]] = [groups[j]!, groups[i]!];
  }
  return groups;
}

describe(`${RECEIVERS} receiver processes on one PostgreSQL database`, () => {
  const database = useTestDatabase({ poolSize: 2 });
  const schema = database.newSchema();
  let servers: ChildServer[] = [];

  beforeAll(async () => {
    await database.pool.query(`CREATE SCHEMA "${schema}"`);
    await database.pool.query(`CREATE TABLE "${schema}".effects (event_id text NOT NULL, pid integer NOT NULL)`);
    // Started together: their first start migrates the same fresh tables at once.
    servers = await Promise.all(Array.from({ length: RECEIVERS }, () => startChildServer(fixture, [database.url, schema, SECRET])));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it(`runs every handler exactly once for ${EVENTS} events delivered scrambled and repeatedly, some at the same moment`, async () => {
    const bodies = Array.from({ length: EVENTS }, (_, i) => JSON.stringify(createTestEvent(EVENT_TYPES[i % EVENT_TYPES.length]!)));
    const groups = plan(bodies, random(20_261_122));
    const outcomes: Outcome[] = [];
    let nextGroup = 0;
    const lanes = Array.from({ length: IN_FLIGHT }, async () => {
      while (nextGroup < groups.length) {
        const group = groups[nextGroup++]!;
        outcomes.push(...(await Promise.all(group.receivers.map((receiver) => deliver(servers[receiver]!.url, group.body)))));
      }
    });
    await Promise.all(lanes);

    const counts = await database.pool.query<{ n: number }>(`SELECT event_id, COUNT(*)::int AS n FROM "${schema}".effects GROUP BY event_id`);
    const pids = await database.pool.query<{ n: number }>(`SELECT COUNT(DISTINCT pid)::int AS n FROM "${schema}".effects`);
    const deliveries = groups.reduce((sum, group) => sum + group.receivers.length, 0);

    expect(deliveries).toBeGreaterThanOrEqual(2 * EVENTS);
    expect(counts.rows).toHaveLength(EVENTS);
    expect(counts.rows.filter((row) => row.n !== 1)).toEqual([]);
    expect(pids.rows[0]!.n).toBe(RECEIVERS);
    // Every delivery ended in a 200; exactly one per event ran the handlers, the rest were duplicates.
    expect(outcomes).toHaveLength(deliveries);
    expect(outcomes.filter((outcome) => !outcome.duplicate)).toHaveLength(EVENTS);
    const statuses = outcomes.flatMap((outcome) => outcome.statuses);
    expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
    // Deliveries of one event really overlapped: the later one was told to come back.
    expect(statuses).toContain(409);
  });
});
