import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../src/index.js';
import { createTestEvent, signedHeaders } from '../../../src/testing/index.js';
import { startChildServer, type ChildServer } from '../../helpers/processes.js';

const SECRET = 'whsec_multiProcessSecret0000000000000';
const EVENTS = 500;
const fixture = resolve(import.meta.dirname, '../..', 'fixtures', 'receiver-process.mjs');

/** Delivers like a sender that retries a 409 quickly: until the event is acknowledged. */
async function deliver(url: string, body: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await fetch(`${url}/webhooks`, { method: 'POST', body, headers: signedHeaders(body, SECRET) });
    await response.arrayBuffer();
    statuses.push(response.status);
    if (response.status === 200) return statuses;
    await new Promise((done) => setTimeout(done, 5));
  }
  throw new Error(`not acknowledged after 200 attempts: ${statuses.join(',')}`);
}

describe('two receiver processes sharing one SQLite file', () => {
  let dir: string;
  let servers: ChildServer[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'acct-webhook-multiprocess-'));
    const args = [join(dir, 'events.db'), join(dir, 'effects.db'), SECRET];
    // Started one after the other: the first creates the schema.
    servers = [await startChildServer(fixture, args)];
    servers.push(await startChildServer(fixture, args));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs every handler exactly once when both receive the same 500 events concurrently', async () => {
    const bodies = Array.from({ length: EVENTS }, (_, i) => JSON.stringify(createTestEvent(EVENT_TYPES[i % EVENT_TYPES.length]!)));
    const statuses: number[] = [];
    for (let i = 0; i < bodies.length; i += 25) {
      const batch = bodies.slice(i, i + 25).flatMap((body) => servers.map((server) => deliver(server.url, body)));
      for (const result of await Promise.all(batch)) statuses.push(...result);
    }

    const effects = new Database(join(dir, 'effects.db'), { readonly: true });
    const counts = effects.prepare('SELECT event_id, COUNT(*) AS n FROM effects GROUP BY event_id').all() as { n: number }[];
    const pids = effects.prepare('SELECT COUNT(DISTINCT pid) AS n FROM effects').get() as { n: number };
    effects.close();

    expect(counts).toHaveLength(EVENTS);
    expect(counts.filter((row) => row.n !== 1)).toEqual([]);
    expect(pids.n).toBe(2);
    expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
    // The two deliveries of an event really overlapped: the loser was told to come back.
    expect(statuses).toContain(409);
  });
});
