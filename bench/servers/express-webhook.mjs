// (b): the full path — webhookHandler with sqliteStore: verify, parse with zod, claim + complete, handler.
import express from 'express';
import { sqliteStore, webhookHandler, Webhooks } from '../../dist/index.js';
import { sqliteOptions } from '../lib/driver.mjs';
import { SECRET } from '../lib/events.mjs';
import { listen, tempDatabase } from './listen.mjs';

const app = express();
app.use(webhookHandler({ secret: SECRET, handlers: new Webhooks().onAny(() => {}), store: sqliteStore(tempDatabase(), sqliteOptions), logger: false }));
listen(app);
