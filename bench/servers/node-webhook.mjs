// nodeHandler, full path with sqliteStore.
import { createServer } from 'node:http';
import { nodeHandler, sqliteStore, Webhooks } from '../../dist/index.js';
import { sqliteOptions } from '../lib/driver.mjs';
import { SECRET } from '../lib/events.mjs';
import { listen, tempDatabase } from './listen.mjs';

listen(createServer(nodeHandler({ secret: SECRET, handlers: new Webhooks().onAny(() => {}), store: sqliteStore(tempDatabase(), sqliteOptions), logger: false })));
