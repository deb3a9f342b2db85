// nodeHandler, full path with postgresStore (direct mode) in a schema of its own, dropped on exit.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';
import { nodeHandler, Webhooks } from '../../dist/index.js';
import { postgresStore } from '../../dist/postgres.js';
import { POSTGRES_URL, SECRET } from '../lib/events.mjs';
import { listen } from './listen.mjs';

const schema = `acct_bench_${randomBytes(6).toString('hex')}`;
const store = postgresStore(POSTGRES_URL, { schema });
await store.ready(); // migrated before the clock starts

listen(createServer(nodeHandler({ secret: SECRET, handlers: new Webhooks().onAny(() => {}), store, logger: false })), async () => {
  await store.close();
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
});
