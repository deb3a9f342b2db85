import { createHmac } from 'node:crypto';
import { EVENT_TYPES } from '../../dist/index.js';
import { createTestEvent, signedHeaders } from '../../dist/testing.js';

export const SECRET = 'whsec_benchmarkSecretForLoopbackOnly00';
/** The PostgreSQL of the PostgreSQL receiver (the tests' server unless ACCT_WEBHOOK_PG_URL says otherwise). */
export const POSTGRES_URL = process.env.ACCT_WEBHOOK_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** About 1 KB: every event type's sample, padded to the same size with a realistic note field. */
export function eventBody(i) {
  const event = createTestEvent(EVENT_TYPES[i % EVENT_TYPES.length]);
  const size = JSON.stringify(event).length;
  const note = 'Zahlung gemäß Rechnung, Skonto 2 % bei Zahlung binnen 14 Tagen. '.repeat(20).slice(0, Math.max(0, 1024 - size - 12));
  return JSON.stringify({ ...event, data: { ...event.data, object: { ...event.data.object, note } } });
}

/** A request the platform would send: fresh signature, unique event id. */
export function platformRequest(i) {
  const body = eventBody(i);
  return { method: 'POST', path: '/webhooks', headers: signedHeaders(body, SECRET), body };
}

/** The same body signed the way GitHub (and @octokit/webhooks) expects. */
export function githubRequest(i) {
  const body = eventBody(i);
  return {
    method: 'POST',
    path: '/webhooks',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'ping',
      'x-github-delivery': `d-${i}`,
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
    body,
  };
}
