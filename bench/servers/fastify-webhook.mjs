// fastifyWebhooks with sqliteStore: the full path (verify, parse, claim + complete, handler) in Fastify 5.
import Fastify from 'fastify';
import { sqliteStore, Webhooks } from '../../dist/index.js';
import { fastifyWebhooks } from '../../dist/fastify.js';
import { sqliteOptions } from '../lib/driver.mjs';
import { SECRET } from '../lib/events.mjs';
import { listen, tempDatabase } from './listen.mjs';

const app = Fastify();
await app.register(fastifyWebhooks, { path: '/webhooks', secret: SECRET, handlers: new Webhooks().onAny(() => {}), store: sqliteStore(tempDatabase(), sqliteOptions), logger: false });
await app.ready();
listen(app.server);
