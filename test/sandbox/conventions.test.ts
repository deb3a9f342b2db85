import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { apiClient, type ApiCall } from './helpers.js';

/* The platform document's conventions, as the sandbox serves them. */

let sandbox: Sandbox;
let call: ApiCall;
let customerId: string;

beforeAll(async () => {
  sandbox = await createSandbox({ seed: 1, plan: 'business' });
  call = apiClient(sandbox);
  customerId = (await call('POST', '/customers', { name: 'Bäckerei Huber GmbH' })).body.data.id;
});
afterAll(() => sandbox.close());

describe('authentication', () => {
  it.each([
    ['no Authorization header', undefined],
    ['a wrong test key', 'Bearer sk_test_wrongwrongwrong'],
    ['a live key', 'Bearer sk_live_0123456789abcdef'],
    ['a key without Bearer', 'sk_test_0123456789'],
  ])('%s → 401 UNAUTHORIZED with a hint', async (_name, authorization) => {
    const answer = await fetch(`${sandbox.url}/customers`, authorization === undefined ? {} : { headers: { authorization } });
    const body = (await answer.json()) as { error: { code: string; details: { hint: string } } };
    expect(answer.status).toBe(401);
    expect(body.error.code).toBe('UNAUTHORIZED');
    expect(body.error.details.hint).toEqual(expect.any(String));
    expect(answer.headers.get('x-ratelimit-limit')).toBe('600');
  });

  it('tells a live key apart: the hint says this is the sandbox', async () => {
    const answer = await call('GET', '/customers', undefined, { authorization: 'Bearer sk_live_0123456789abcdef' });
    expect(answer.body.error.details.hint).toMatch(/sandbox/);
  });
});

describe('VALIDATION_ERROR with field and reason', () => {
  it.each([
    ['POST /customers without name', '/customers', {}, 422, 'name'],
    ['POST /customers with a bad e-mail', '/customers', { name: 'A', email: 'nope' }, 422, 'email'],
    ['POST /customers with an unknown field', '/customers', { name: 'A', colour: 'red' }, 422, 'colour'],
    ['POST /invoices with an amount in euros', '/invoices', { customer_id: 'x', amount: 119.5, currency: 'EUR' }, 422, 'amount'],
    ['POST /invoices with a lower-case currency', '/invoices', { customer_id: 'x', amount: 100, currency: 'eur' }, 422, 'currency'],
    ['POST /invoices for an unknown customer', '/invoices', { customer_id: 'cus_nope', amount: 100, currency: 'EUR' }, 422, 'customer_id'],
    ['POST /transactions without invoice or customer', '/transactions', { amount: 100, currency: 'EUR' }, 422, 'customer_id'],
    ['POST /webhooks with an unknown event', '/webhooks', { url: 'https://localhost:9/hook', events: ['invoice.printed'] }, 422, 'events[0]'],
    ['POST /webhooks with plain http to another host', '/webhooks', { url: 'http://example.com/hook', events: ['*'] }, 422, 'url'],
    ['POST /webhooks with no events', '/webhooks', { url: 'https://localhost:9/hook', events: [] }, 422, 'events'],
    ['POST /sandbox/clock with a bad duration', '/sandbox/clock', { advance: '30 days' }, 422, 'advance'],
    ['PATCH /webhooks with nothing to change', 'PATCH /webhooks/:id', {}, 422, ''],
    ['PATCH /webhooks with an unknown status', 'PATCH /webhooks/:id', { status: 'paused' }, 422, 'status'],
    ['PATCH /webhooks replaying without enabling', 'PATCH /webhooks/:id', { events: ['*'], replay_skipped: true }, 422, 'replay_skipped'],
    ['PATCH /webhooks replaying while disabling', 'PATCH /webhooks/:id', { status: 'disabled', replay_skipped: true }, 422, 'replay_skipped'],
    ['a body that is not JSON', '/customers', '{"name":', 400, ''],
  ])('%s: %s %j → %i on %s', async (_name, path, body, status, field) => {
    const answer = path.startsWith('PATCH ')
      ? await call('PATCH', `/webhooks/${(await call('POST', '/webhooks', { url: 'https://localhost:9/hook', events: ['*'] })).body.data.id}`, body)
      : await call('POST', path, body);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, reason: expect.any(String) } });
  });

  // The reason is what a developer reads to fix the request: its text is the feature here.
  it.each([
    ['an amount in euros', '/invoices', { customer_id: 'x', amount: 119.5, currency: 'EUR' }, 422, 'amount', 'must be an integer number of cents', 'amount must be an integer number of cents'],
    ['an amount as a string', '/invoices', { customer_id: 'x', amount: '100', currency: 'EUR' }, 422, 'amount', 'must be a number, not a string', 'amount must be a number, not a string'],
    ['a negative amount', '/transactions', { customer_id: 'x', amount: -5, currency: 'EUR' }, 422, 'amount', 'must be a positive number of cents', 'amount must be a positive number of cents'],
    ['a missing amount', '/invoices', { customer_id: 'x', currency: 'EUR' }, 422, 'amount', 'is required', 'amount is required'],
    ['a name that is a number', '/customers', { name: 42 }, 422, 'name', 'must be a string, not a number', 'name must be a string, not a number'],
    ['events as a string', '/webhooks', { url: 'https://localhost:9/hook', events: '*' }, 422, 'events', 'must be an array, not a string', 'events must be an array, not a string'],
    ['a JSON array body', '/customers', [{ name: 'A' }], 422, '', 'the body must be a JSON object, not an array', 'The body must be a JSON object, not an array'],
    ['a JSON string body', '/customers', '"Huber"', 422, '', 'the body must be a JSON object, not a string', 'The body must be a JSON object, not a string'],
    ['a body that is not JSON', '/customers', '{"name":', 400, '', 'the body must be JSON', 'The body must be JSON'],
    ['an ftp URL', '/webhooks', { url: 'ftp://localhost/hook', events: ['*'] }, 422, 'url', 'must use https, not ftp:', 'url must use https, not ftp:'],
    [
      'plain http to another host',
      '/webhooks',
      { url: 'http://example.com/hook', events: ['*'] },
      422,
      'url',
      'must use https: plain http is allowed only to localhost, 127.0.0.1 or [::1], not to example.com',
      'url must use https: plain http is allowed only to localhost, 127.0.0.1 or [::1], not to example.com',
    ],
    ['a URL with credentials', '/webhooks', { url: 'https://me:pw@localhost/hook', events: ['*'] }, 422, 'url', 'must not contain credentials (user:password@); send them in a custom header', 'url must not contain credentials (user:password@); send them in a custom header'],
    ['a relative URL', '/webhooks', { url: '/hook', events: ['*'] }, 422, 'url', 'must be an absolute URL, such as https://receiver.example/webhooks', 'url must be an absolute URL, such as https://receiver.example/webhooks'],
    [
      'https to another loopback address',
      '/webhooks',
      { url: 'https://127.0.0.2/hook', events: ['*'] },
      422,
      'url',
      'must reach the public internet, or plain http to localhost, 127.0.0.1 or [::1]; 127.0.0.2 is a loopback address',
      'url must reach the public internet, or plain http to localhost, 127.0.0.1 or [::1]; 127.0.0.2 is a loopback address',
    ],
  ])('%s → %i, %s: "%s"', async (_name, path, body, status, field, reason, message) => {
    const answer = await call('POST', path, body);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toEqual({ code: 'VALIDATION_ERROR', message, details: { field, reason } });
  });

  it('a transition the object cannot make is VALIDATION_ERROR on status: sending an invoice twice', async () => {
    const invoice = (await call('POST', '/invoices', { customer_id: customerId, amount: 1000, currency: 'EUR' })).body.data;
    expect((await call('POST', `/invoices/${invoice.id}/send`)).status).toBe(200);
    const again = await call('POST', `/invoices/${invoice.id}/send`);
    expect(again.status).toBe(422);
    expect(again.body.error.details.field).toBe('status');
  });
});

describe('NOT_FOUND', () => {
  it.each([
    ['GET', '/customers/cus_missing'],
    ['GET', '/invoices/inv_missing'],
    ['POST', '/invoices/inv_missing/send'],
    ['DELETE', '/webhooks/wh_missing'],
    ['PATCH', '/webhooks/wh_missing'],
    ['GET', '/webhooks/wh_missing/deliveries'],
    ['GET', '/no-such-endpoint'],
  ])('%s %s → 404 NOT_FOUND', async (method, path) => {
    const answer = await call(method, path, method === 'PATCH' ? { events: ['*'] } : undefined);
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('NOT_FOUND');
  });
});

describe('pagination', () => {
  beforeAll(async () => {
    const existing = (await call('GET', '/customers')).body.pagination.total_count as number;
    for (let n = existing; n < 105; n += 1) await call('POST', '/customers', { name: `Kunde ${String(n).padStart(3, '0')}` });
  });

  it('defaults to page 1 of 20, newest first, with the document pagination object', async () => {
    const answer = await call('GET', '/customers');
    expect(answer.body.pagination).toEqual({ page: 1, per_page: 20, total_count: 105, total_pages: 6 });
    expect(answer.body.data).toHaveLength(20);
    expect(answer.body.data[0].name).toBe('Kunde 104');
  });

  it('gives at most 100 a page, and the rest on the last page', async () => {
    const first = await call('GET', '/customers?per_page=100&order=asc');
    expect(first.body.data).toHaveLength(100);
    expect(first.body.data[0].id).toBe(customerId);
    const last = await call('GET', '/customers?per_page=100&page=2&order=asc');
    expect((last.body.data as { name: string }[]).map((customer) => customer.name)).toEqual(['Kunde 100', 'Kunde 101', 'Kunde 102', 'Kunde 103', 'Kunde 104']);
  });

  it('refuses a page beyond the last with VALIDATION_ERROR on page, saying which is the last; page 1 of an empty list is empty', async () => {
    const beyond = await call('GET', '/customers?per_page=100&page=3');
    expect(beyond.status).toBe(400);
    expect(beyond.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'page', reason: 'must be at most 2, the last page (105 entries at per_page 100)' } });
    const empty = await call('GET', '/sandbox/uva?page=1');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: [], pagination: { page: 1, per_page: 20, total_count: 0, total_pages: 0 } });
    expect((await call('GET', '/sandbox/uva?page=2')).status).toBe(400);
  });

  it('sorts by a field and returns only the fields asked for', async () => {
    const answer = await call('GET', '/customers?sort=name&order=asc&per_page=1&fields=name');
    expect(answer.body.data).toEqual([{ id: customerId, name: 'Bäckerei Huber GmbH' }]);
  });

  it.each([
    ['per_page=101', 'per_page'],
    ['per_page=0', 'per_page'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=9007199254740993', 'page'],
    ['page=1e3', 'page'],
    ['per_page=ten', 'per_page'],
    ['order=up', 'order'],
    ['sort=colour', 'sort'],
  ])('%s → 400 VALIDATION_ERROR on %s', async (query, field) => {
    const answer = await call('GET', `/customers?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });
});

describe('rate limits', () => {
  it('counts every request in X-RateLimit-*, answers 429 with Retry-After past the plan limit, and opens again a minute later', async () => {
    const starter = await createSandbox({ seed: 2, plan: 'starter' });
    try {
      const api = apiClient(starter);
      const answers = [];
      for (let n = 0; n < 61; n += 1) answers.push(await api('GET', '/me'));
      const first = answers[0]!;
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-limit')).toBe('60');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
      expect(Number(first.headers.get('x-ratelimit-reset'))).toBe(Math.ceil((starter.now() + 60_000) / 1000));
      expect(answers[59]!.headers.get('x-ratelimit-remaining')).toBe('0');
      const refused = answers[60]!;
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { retry_after: 60, limit: 60, window: 'minute' } });
      await starter.advance('1m');
      expect((await api('GET', '/me')).status).toBe(200);
    } finally {
      await starter.close();
    }
  });

  it('allows 50 webhook retries per 15 minutes, then 429 on the retry endpoint only', async () => {
    const retries = await createSandbox({ seed: 3, plan: 'business', deliveryTimeoutMs: 2_000 });
    try {
      const api = apiClient(retries);
      // A webhook on a closed port: every attempt fails fast, which is all a retry needs.
      const webhook = (await api('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['customer.created'] })).body.data;
      await api('POST', '/customers', { name: 'Retry GmbH' });
      await retries.settle();
      const [delivery] = (await api('GET', `/webhooks/${webhook.id}/deliveries`)).body.data;
      for (let n = 0; n < 50; n += 1) {
        const answer = await api('POST', `/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`);
        expect(answer.status).toBe(200);
        expect(answer.headers.get('x-ratelimit-limit')).toBe('50');
      }
      const refused = await api('POST', `/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`);
      expect(refused.status).toBe(429);
      // The window opened with the first retry; each of the 50 moved the frozen clock by a second.
      expect(refused.headers.get('retry-after')).toBe('850');
      expect(refused.body.error.details).toMatchObject({ limit: 50, window: '15 minutes' });
      expect((await api('GET', `/webhooks/${webhook.id}`)).status).toBe(200);
    } finally {
      await retries.close();
    }
  });
});

describe('webhook management', () => {
  it('create answers 201 with the secret once; list, patch, rotate and delete answer as written in docs/sandbox.md', async () => {
    const created = await call('POST', '/webhooks', { url: 'https://localhost:9/hook', events: ['invoice.*'] });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.data).sort()).toEqual(['created_at', 'events', 'id', 'secret', 'status', 'url']);
    expect(created.body.data).toMatchObject({ url: 'https://localhost:9/hook', events: ['invoice.*'], status: 'active', secret: expect.stringMatching(/^whsec_/) });
    const { id, secret } = created.body.data;
    const listed = await call('GET', '/webhooks');
    expect((listed.body.data as { id: string }[]).find((webhook) => webhook.id === id)).not.toHaveProperty('secret');
    const patched = await call('PATCH', `/webhooks/${id}`, { events: ['invoice.paid'] });
    expect(patched.status).toBe(200);
    expect(patched.body.data.events).toEqual(['invoice.paid']);
    const rotated = await call('POST', `/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(secret);
    const disabled = await call('PATCH', `/webhooks/${id}`, { status: 'disabled' });
    expect(disabled.body.data).toEqual({
      id,
      url: 'https://localhost:9/hook',
      events: ['invoice.paid'],
      status: 'disabled',
      created_at: created.body.data.created_at,
      disabled_at: expect.any(String),
      disabled_reason: 'manual',
      disabled_message: `Disabled: it was disabled through the API at ${disabled.body.data.disabled_at}. New events are kept as skipped; enable it with PATCH /v1/webhooks/${id} {"status": "active", "replay_skipped": true}.`,
      skipped_events: 0,
    });
    expect((await call('GET', `/webhooks/${id}`)).body.data).toEqual(disabled.body.data);
    const enabled = await call('PATCH', `/webhooks/${id}`, { status: 'active' });
    expect(enabled.body.data).toEqual({ id, url: 'https://localhost:9/hook', events: ['invoice.paid'], status: 'active', created_at: created.body.data.created_at });
    const deleted = await call('DELETE', `/webhooks/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect((await call('GET', `/webhooks/${id}`)).status).toBe(404);
  });

  it('create takes a scheme and an algorithm; the answer shows them and the public key, never a private key; rotate-secret takes a grace', async () => {
    const created = await call('POST', '/webhooks', { url: 'https://localhost:9/hook', events: ['*'], scheme: 'standard-webhooks', algorithm: 'ed25519' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ scheme: 'standard-webhooks', algorithm: 'ed25519', public_key: expect.stringMatching(/^whpk_/), secret: created.body.data.public_key });
    const { id } = created.body.data;
    const rotated = await call('POST', `/webhooks/${id}/rotate-secret`, { grace_ms: 3_600_000 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.public_key).toMatch(/^whpk_/);
    expect(rotated.body.data.public_key).not.toBe(created.body.data.public_key);
    expect(JSON.stringify([created.body, rotated.body, (await call('GET', `/webhooks/${id}`)).body])).not.toContain('whsk_');
    const both = await call('POST', '/webhooks', { url: 'https://localhost:9/hook', events: ['*'], scheme: 'both' });
    expect(both.body.data).toMatchObject({ scheme: 'both', algorithm: 'hmac-sha256', secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    expect(both.body.data).not.toHaveProperty('public_key');
    for (const [path, body, field] of [
      ['/webhooks', { url: 'https://localhost:9/hook', events: ['*'], scheme: 'svc', algorithm: 'ed25519' }, 'algorithm'],
      ['/webhooks', { url: 'https://localhost:9/hook', events: ['*'], scheme: 'svix' }, 'scheme'],
      [`/webhooks/${id}/rotate-secret`, { grace_ms: -5 }, 'graceMs'],
    ] as const) {
      const refused = await call('POST', path, body);
      expect([refused.status, refused.body.error.code, refused.body.error.details.field]).toEqual([422, 'VALIDATION_ERROR', field]);
    }
  });
});
