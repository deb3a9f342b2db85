// Baseline: bare Hono 4 on @hono/node-server, reading the raw body and answering 200.
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { listen } from './listen.mjs';

const app = new Hono();
app.post('/webhooks', async (c) => {
  await c.req.arrayBuffer();
  return c.json({ received: true });
});
listen(getRequestListener(app.fetch));
