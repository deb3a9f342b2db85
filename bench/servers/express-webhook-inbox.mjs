// webhookHandler in inbox mode: verify, parse with zod, one durable write (store + dedupe),
// answer; the handlers run in the same process's background worker while the load goes on.
import express from 'express';
import { sqliteStore, webhookHandler, Webhooks } from '../../dist/index.js';
import { sqliteOptions } from '../lib/driver.mjs';
import { SECRET } from '../lib/events.mjs';
import { listen, tempDatabase } from './listen.mjs';

const app = express();
app.use(webhookHandler({ secret: SECRET, handlers: new Webhooks().onAny(() => {}), store: sqliteStore(tempDatabase(), sqliteOptions), logger: false, inbox: true }));
listen(app);
