// (c): the peer — @octokit/webhooks createNodeMiddleware mounted the same way (verify + route; no schema, no dedupe).
import { createNodeMiddleware, Webhooks } from '@octokit/webhooks';
import express from 'express';
import { SECRET } from '../lib/events.mjs';
import { listen } from './listen.mjs';

const webhooks = new Webhooks({ secret: SECRET });
webhooks.onAny(() => {});
const app = express();
app.use(createNodeMiddleware(webhooks, { path: '/webhooks', log: { debug() {}, info() {}, warn() {}, error() {} } }));
listen(app);
