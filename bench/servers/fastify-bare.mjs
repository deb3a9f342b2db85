// Baseline: bare Fastify 5, the raw body taken as a buffer (no JSON parse), answering 200 —
// what a Fastify app that reads the raw body itself does before verifying anything.
import Fastify from 'fastify';
import { listen } from './listen.mjs';

const app = Fastify();
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
app.post('/webhooks', async () => ({ received: true }));
await app.ready();
listen(app.server);
