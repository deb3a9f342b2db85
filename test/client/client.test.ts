import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  ApiForbiddenError,
  ApiNotFoundError,
  ApiRateLimitError,
  ApiUnauthorizedError,
  ApiValidationError,
  ConfigurationError,
  createClient,
  type Client,
} from '../../src/client/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { capturingLogger } from './helpers.js';

/*
 * The client against the sandbox on 127.0.0.1: every endpoint of the platform document's webhook
 * table, /v1/me, the error envelope as typed errors, and the sandbox's own rate limit.
 */

let sandbox: Sandbox;
let client: Client;
const log = capturingLogger();

beforeAll(async () => {
  sandbox = await createSandbox({ seed: 7, plan: 'business', accounts: 2 });
  client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, logger: log.logger });
});
afterAll(() => sandbox.close());

describe('the webhook management table', () => {
  it('create → list → update → rotate-secret → delete, each answered in the API’s records', async () => {
    const created = await client.webhooks.create({ url: 'https://localhost:9/hooks', events: ['invoice.*'] });
    expect(created).toMatchObject({ id: expect.stringMatching(/^wh_/), url: 'https://localhost:9/hooks', events: ['invoice.*'], status: 'active', created_at: expect.any(String) });
    expect(created.secret).toMatch(/^whsec_/);

    expect((await client.webhooks.list()).map((webhook) => webhook.id)).toContain(created.id);

    const updated = await client.webhooks.update(created.id, { events: ['invoice.paid', 'payment.*'] });
    expect(updated).toMatchObject({ id: created.id, events: ['invoice.paid', 'payment.*'], status: 'active' });
    expect(updated).not.toHaveProperty('secret');

    const disabled = await client.webhooks.update(created.id, { status: 'disabled' });
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'manual' });
    expect(await client.webhooks.update(created.id, { status: 'active', replay_skipped: true })).toMatchObject({ status: 'active' });

    const rotated = await client.webhooks.rotateSecret(created.id);
    expect(rotated.id).toBe(created.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);

    await expect(client.webhooks.delete(created.id)).resolves.toBeUndefined();
    expect((await client.webhooks.list()).map((webhook) => webhook.id)).not.toContain(created.id);
  });

  it('lists every registration, across the API’s pages of 100', async () => {
    const ids = [];
    for (let i = 0; i < 103; i++) ids.push((await client.webhooks.create({ url: `https://localhost:9/many/${i}`, events: ['*'] })).id);
    const listed = (await client.webhooks.list()).map((webhook) => webhook.id);
    expect(listed).toEqual(expect.arrayContaining(ids));
    expect(new Set(listed).size).toBe(listed.length);
    for (const id of ids) await client.webhooks.delete(id);
  });
});

describe('/v1/me', () => {
  it('answers the user and the account the key belongs to', async () => {
    expect(await client.me()).toEqual({
      id: expect.stringMatching(/^usr_/),
      email: expect.any(String),
      business: { id: expect.stringMatching(/^biz_/), name: expect.any(String), uid_number: expect.stringMatching(/^ATU/) },
      subscription: { plan: 'business', status: 'active' },
    });
  });
});

describe('the error envelope as typed errors', () => {
  it.each([
    ['an unknown key', () => createClient({ apiKey: 'sk_test_notTheSandboxKey', baseUrl: sandbox.baseUrl, logger: false }).me(), ApiUnauthorizedError, 'UNAUTHORIZED', 401],
    [
      "another account's webhook",
      async () => {
        const theirs = await client.webhooks.create({ url: 'https://localhost:9/theirs', events: ['*'] });
        return createClient({ apiKey: sandbox.accounts[1]!.apiKey, baseUrl: sandbox.baseUrl, logger: false }).webhooks.update(theirs.id, { events: ['*'] });
      },
      ApiForbiddenError,
      'FORBIDDEN',
      403,
    ],
    ['an unknown webhook', () => client.webhooks.update('wh_nope', { events: ['*'] }), ApiNotFoundError, 'NOT_FOUND', 404],
    ['deleting an unknown webhook', () => client.webhooks.delete('wh_nope'), ApiNotFoundError, 'NOT_FOUND', 404],
    ['rotating an unknown webhook', () => client.webhooks.rotateSecret('wh_nope'), ApiNotFoundError, 'NOT_FOUND', 404],
    ['an unknown event type', () => client.webhooks.create({ url: 'https://localhost:9/x', events: ['invoice.printed' as never] }), ApiValidationError, 'VALIDATION_ERROR', 422],
    ['plain http to another host', () => client.webhooks.create({ url: 'http://example.com/x', events: ['*'] }), ApiValidationError, 'VALIDATION_ERROR', 422],
  ])('%s → %s with the code and status of the answer', async (_case, call, type, code, status) => {
    const error = await call().then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code, status, details: expect.any(Object), request: { method: expect.any(String), path: expect.stringMatching(/^\/v1\//) } });
  });

  it('VALIDATION_ERROR carries the field and the reason', async () => {
    const error = (await client.webhooks.create({ url: 'http://example.com/x', events: ['*'] }).catch((thrown: unknown) => thrown)) as ApiValidationError;
    expect(error.details).toMatchObject({ field: 'url', reason: expect.any(String) });
  });

  it('UNAUTHORIZED carries the hint, and the rate limit of the answer', async () => {
    const error = (await createClient({ apiKey: 'sk_test_notTheSandboxKey', baseUrl: sandbox.baseUrl, logger: false })
      .me()
      .catch((thrown: unknown) => thrown)) as ApiUnauthorizedError;
    expect(error.details.hint).toEqual(expect.any(String));
    expect(error.rateLimit).toEqual({ limit: 600, remaining: expect.any(Number), reset_at: expect.any(String) });
  });
});

describe('X-RateLimit-* and 429 from the sandbox’s rate limit', () => {
  it('exposes the last answer’s X-RateLimit-* headers', async () => {
    await client.me();
    const first = client.rateLimit!;
    await client.me();
    expect(first).toEqual({ limit: 600, remaining: expect.any(Number), reset_at: expect.stringMatching(/Z$/) });
    expect(client.rateLimit!.remaining).toBe(first.remaining - 1);
  });

  /** A sandbox on the Starter plan (60 a minute) whose frozen clock moves only when told. */
  async function starterSandbox(): Promise<Sandbox> {
    const starter = await createSandbox({ seed: 8, plan: 'starter' });
    const exhaust = createClient({ apiKey: starter.apiKey, baseUrl: starter.baseUrl, maxRetries: 0, logger: false });
    for (let i = 0; i < 60; i++) await exhaust.me();
    return starter;
  }

  it('waits the Retry-After the 429 asks (with jitter on top, never less), then the call goes through', async () => {
    const starter = await starterSandbox();
    try {
      const waits: number[] = [];
      const patient = createClient({
        apiKey: starter.apiKey,
        baseUrl: starter.baseUrl,
        logger: false,
        // The sandbox's window is on its clock: waiting is moving that clock.
        sleep: async (ms) => {
          waits.push(ms);
          await starter.advance(ms);
        },
      });
      const before = starter.now();
      expect((await patient.me()).subscription.plan).toBe('starter');
      expect(waits).toHaveLength(1);
      // The window opened with the first request at `before`: the 429 asked for 60 s.
      expect(waits[0]).toBeGreaterThanOrEqual(60_000);
      expect(waits[0]).toBeLessThanOrEqual(60_000 + 500);
      expect(starter.now() - before).toBe(waits[0]);
      expect(patient.rateLimit).toEqual({ limit: 60, remaining: 59, reset_at: expect.any(String) });
    } finally {
      await starter.close();
    }
  });

  it('gives up with ApiRateLimitError (retry_after, limit, window, the headers) when retries are off', async () => {
    const starter = await starterSandbox();
    try {
      const impatient = createClient({ apiKey: starter.apiKey, baseUrl: starter.baseUrl, maxRetries: 0, logger: false });
      const error = (await impatient.me().catch((thrown: unknown) => thrown)) as ApiRateLimitError;
      expect(error).toBeInstanceOf(ApiRateLimitError);
      expect(error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429, retryAfterMs: 60_000, rateLimit: { limit: 60, remaining: 0 } });
      expect(error.details).toMatchObject({ retry_after: 60, limit: 60, window: 'minute', reset_at: expect.any(String) });
    } finally {
      await starter.close();
    }
  });

  it('does not wait a Retry-After longer than maxRetryAfterMs: it throws at once', async () => {
    const starter = await starterSandbox();
    try {
      const waits: number[] = [];
      const bounded = createClient({ apiKey: starter.apiKey, baseUrl: starter.baseUrl, maxRetryAfterMs: 10_000, logger: false, sleep: (ms) => (waits.push(ms), Promise.resolve()) });
      await expect(bounded.webhooks.list()).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retryAfterMs: 60_000 });
      expect(waits).toEqual([]);
    } finally {
      await starter.close();
    }
  });

  it('retries a 429 of a call that changes state too: the API did not carry it out', async () => {
    const starter = await starterSandbox();
    try {
      const waits: number[] = [];
      const patient = createClient({ apiKey: starter.apiKey, baseUrl: starter.baseUrl, logger: false, sleep: (ms) => (waits.push(ms), starter.advance(ms)) });
      const created = await patient.webhooks.create({ url: 'https://localhost:9/after-429', events: ['*'] });
      expect(waits).toHaveLength(1);
      expect((await patient.webhooks.list()).filter((webhook) => webhook.url === created.url)).toHaveLength(1);
    } finally {
      await starter.close();
    }
  });
});

describe('the key is never logged', () => {
  it('in no log line (debug included), no error, no inspection of the client', async () => {
    const { logger, lines } = capturingLogger();
    const starter = await createSandbox({ seed: 9, plan: 'starter' });
    try {
      const watched = createClient({ apiKey: starter.apiKey, baseUrl: starter.baseUrl, logger, sleep: (ms) => starter.advance(ms) });
      const errors: unknown[] = [];
      for (let i = 0; i < 62; i++) await watched.me();
      errors.push(await watched.webhooks.delete('wh_nope').catch((error: unknown) => error));
      errors.push(await watched.webhooks.create({ url: 'http://example.com', events: ['*'] }).catch((error: unknown) => error));
      errors.push(await createClient({ apiKey: 'sk_test_anotherSecretKey123', baseUrl: starter.baseUrl, logger }).me().catch((error: unknown) => error));
      expect(lines.some((line) => line.includes('"level":"warn"'))).toBe(true);
      expect(lines.some((line) => line.includes('"level":"debug"'))).toBe(true);
      const everything = [...lines, ...errors.map((error) => `${inspect(error, { depth: 10 })} ${JSON.stringify(error)}`), inspect(watched, { depth: 10, getters: true }), JSON.stringify(watched)].join('\n');
      expect(everything).not.toContain(starter.apiKey);
      expect(everything).not.toContain('sk_test_anotherSecretKey123');
      expect(everything).not.toMatch(/bearer/i);
    } finally {
      await starter.close();
    }
    expect(log.lines.join('\n')).not.toContain(sandbox.apiKey);
  });

  it('nor in a refused option', () => {
    const error = (() => {
      try {
        createClient({ apiKey: 'sk_prod_verySecretValue', baseUrl: 'https://api.example.com' });
      } catch (thrown) {
        return thrown as ConfigurationError;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error!.details.option).toBe('apiKey');
    expect(`${error!.message} ${JSON.stringify(error!.details)}`).not.toContain('verySecretValue');
  });
});
