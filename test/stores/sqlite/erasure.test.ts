import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/dispatcher.js';
import { sqliteDispatchStore } from '../../../src/stores/sqlite/index.js';
import { SQLITE_DRIVERS } from '../../../src/stores/sqlite/drivers.js';
import { nodeSqliteSupport } from '../../../src/stores/sqlite/node-sqlite.js';
import { createTestEvent } from '../../../src/testing/index.js';
import { withServer } from '../../helpers/server.js';
import { Receiver, tempDir } from '../../dispatcher/fixtures.js';

/*
 * An erasure that erases on disk: after eraseBusiness, the business's payloads and the answers
 * to them are in none of the SQLite files — not in a freed page of the database, not in an old
 * page version in the WAL — right after the erase and after close(). The files are read as bytes.
 */

const ERASED = 'biz_erased00000000';
const MARKER = 'Erasure-Marker-7f3a9c';
const KEPT = 'Kept-Marker-2b8d41';

/** How many times `text` occurs in the file's bytes (0 for a file that is not there). */
function occurrences(file: string, text: string): number {
  if (!existsSync(file)) return 0;
  const bytes = readFileSync(file);
  const needle = Buffer.from(text);
  let count = 0;
  for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) count += 1;
  return count;
}

const drivers = SQLITE_DRIVERS.filter((driver) => driver !== 'node:sqlite' || nodeSqliteSupport().module);

describe.each(drivers)('eraseBusiness on SQLite (%s): the files on disk', (driver) => {
  it('leaves the erased payloads and answers in neither the database nor its WAL, before and after close()', async () => {
    const receiver = new Receiver((request) => ({ status: 200, body: request.body.includes(MARKER) ? `thanks ${MARKER}` : `thanks ${KEPT}` }));
    await withServer(receiver.listener, async (url) => {
      const file = join(tempDir(), 'dispatch.db');
      const files = [file, `${file}-wal`, `${file}-journal`];
      const found = (text: string) => files.map((name) => occurrences(name, text));
      const store = sqliteDispatchStore(file, { driver });
      const dispatcher = new Dispatcher({ store, logger: false, allowInsecureUrls: true, schedule: [0, 60] });
      try {
        await dispatcher.webhooks.create({ url, events: ['*'] });
        const customer = createTestEvent('customer.created').data.object;
        // Large payloads too, so that overflow pages are freed as well as cells.
        for (let index = 0; index < 20; index += 1) {
          const name = `${MARKER} ${index} ${'x'.repeat(index % 2 === 0 ? 10 : 9_000)}`;
          await dispatcher.emit('customer.created', { ...customer, name }, { business_id: ERASED });
          await dispatcher.emit('customer.created', { ...customer, name: `${KEPT} ${index}` }, { business_id: 'biz_kept0000000000' });
        }
        expect(await dispatcher.runDue()).toBe(40);
        expect(found(MARKER).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);

        expect(await dispatcher.eraseBusiness(ERASED)).toEqual({ events: 20, attempts: 20, deliveriesEnded: 0, webhooks: 0 });
        expect(found(MARKER)).toEqual([0, 0, 0]);
      } finally {
        await dispatcher.close();
        await store.close();
      }
      expect(found(MARKER)).toEqual([0, 0, 0]);
      // What was not erased is still there (the check reads what it says it reads).
      expect(occurrences(file, KEPT)).toBeGreaterThan(0);
    });
  });
});
