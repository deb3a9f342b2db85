// honoWebhooks with sqliteStore on @hono/node-server: the full path in Hono 4.
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { sqliteStore, Webhooks } from '../../dist/index.js';
import { honoWebhooks } from '../../dist/hono.js';
import { sqliteOptions } from '../lib/driver.mjs';
import { SECRET } from '../lib/events.mjs';
import { listen, tempDatabase } from './listen.mjs';

const app = new Hono();
app.post('/webhooks', honoWebhooks({ secret: SECRET, handlers: new Webhooks().onAny(() => {}), store: sqliteStore(tempDatabase(), sqliteOptions), logger: false }));
listen(getRequestListener(app.fetch));
