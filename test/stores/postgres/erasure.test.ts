import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/dispatcher.js';
import { postgresDispatchStore } from '../../../src/stores/postgres/index.js';
import { createTestEvent } from '../../../src/testing/index.js';
import { withServer } from '../../helpers/server.js';
import { Receiver } from '../../dispatcher/fixtures.js';
import { POSTGRES_URL } from '../../helpers/postgres.js';

/*
 * An erasure that erases on disk, on PostgreSQL: after eraseBusiness, the step
 * docs/dispatcher.md gives (VACUUM FULL of the dispatcher's tables) leaves the business's
 * payloads and the answers to them in no table's heap nor its TOAST. In a database of the test's
 * own; the relation files are read as bytes by the server (pg_read_binary_file on
 * pg_relation_filepath), after a CHECKPOINT has written every page out.
 */

const ERASED = 'biz_erased00000000';
const MARKER = 'Erasure-Marker-7f3a9c';
const KEPT = 'Kept-Marker-2b8d41';
const DATABASE = `acct_erasure_${randomBytes(4).toString('hex')}`;
const url = new URL(POSTGRES_URL);
url.pathname = `/${DATABASE}`;
const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
const pool = new pg.Pool({ connectionString: url.href, max: 2 });

beforeAll(async () => {
  await admin.query(`CREATE DATABASE ${DATABASE}`);
});
afterAll(async () => {
  await pool.end();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await admin.end();
});

/** How many times `text` occurs in the files of every table and TOAST table of the schema, by relation. */
async function occurrences(schema: string, text: string): Promise<Record<string, number>> {
  await pool.query('CHECKPOINT');
  const { rows } = await pool.query<{ name: string; bytes: Buffer }>(
    `SELECT c.relname AS name, pg_read_binary_file(pg_relation_filepath(c.oid)) AS bytes
       FROM pg_class c LEFT JOIN pg_class owner ON owner.reltoastrelid = c.oid
      WHERE c.relkind IN ('r', 't') AND (c.relnamespace = $1::regnamespace OR owner.relnamespace = $1::regnamespace)`,
    [schema],
  );
  const needle = Buffer.from(text);
  const found: Record<string, number> = {};
  for (const { name, bytes } of rows) {
    let count = 0;
    for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) count += 1;
    if (count > 0) found[name] = count;
  }
  return found;
}

const total = (found: Record<string, number>) => Object.values(found).reduce((sum, count) => sum + count, 0);

describe('eraseBusiness on PostgreSQL: the relation files', () => {
  it('leaves the erased payloads and answers in no heap after VACUUM FULL of the dispatcher tables', async () => {
    const receiver = new Receiver((request) => ({ status: 200, body: request.body.includes(MARKER) ? `thanks ${MARKER}` : `thanks ${KEPT}` }));
    await withServer(receiver.listener, async (target) => {
      const schema = 'dispatch';
      const store = postgresDispatchStore(url.href, { schema, poolSize: 2 });
      const dispatcher = new Dispatcher({ store, logger: false, allowInsecureUrls: true, schedule: [0, 60] });
      try {
        await dispatcher.webhooks.create({ url: target, events: ['*'] });
        const customer = createTestEvent('customer.created').data.object;
        // Large payloads too (random, so that they are not compressed away), which go to TOAST.
        for (let index = 0; index < 10; index += 1) {
          const filler = index % 2 === 0 ? 'x' : randomBytes(6_000).toString('hex');
          await dispatcher.emit('customer.created', { ...customer, name: `${MARKER} ${index} ${filler}` }, { business_id: ERASED });
          await dispatcher.emit('customer.created', { ...customer, name: `${KEPT} ${index}` }, { business_id: 'biz_kept0000000000' });
        }
        expect(await dispatcher.runDue()).toBe(20);
        expect(total(await occurrences(schema, MARKER))).toBeGreaterThan(0);

        expect(await dispatcher.eraseBusiness(ERASED)).toEqual({ events: 10, attempts: 10, deliveriesEnded: 0, webhooks: 0 });
        // The erase alone leaves the old row versions in the heap, dead until a vacuum.
        expect(total(await occurrences(schema, MARKER))).toBeGreaterThan(0);
      } finally {
        await dispatcher.close();
        await store.close();
      }
      // The step the docs give, as they give it.
      await pool.query(`VACUUM FULL ${schema}.dispatch_events, ${schema}.dispatch_attempts`);
      expect(await occurrences(schema, MARKER)).toEqual({});
      expect(await occurrences(schema, KEPT)).toMatchObject({ dispatch_events: 10, dispatch_attempts: 10 });
    });
  });
});
