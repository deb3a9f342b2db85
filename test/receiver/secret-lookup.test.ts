import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { headerRecord } from '../../src/http/headers.js';
import { urlPath } from '../../src/http/path.js';
import { ConfigurationError, createReceiver, memoryStore, signStandardWebhook, type ReceiverOptions, type WebhookSecretLookup } from '../../src/index.js';
import { businessIdOf, SecretResolver } from '../../src/receiver/secret-lookup.js';
import { NODE_PLATFORM } from '../../src/platform/node.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';

const ALPINE = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const DANUBE = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const SECRETS: Record<string, string> = { biz_alpine: ALPINE, biz_danube: DANUBE };

function capture() {
  const lines: Record<string, unknown>[] = [];
  const text: string[] = [];
  const logger = pino({ level: 'debug' }, {
    write(line: string) {
      text.push(line);
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return { logger, lines, text };
}

/** A signed delivery naming `business` in its body (none when undefined). */
function delivery(business: string | undefined, secret = SECRETS[business ?? ''] ?? ALPINE) {
  const { business_id: _sample, ...anonymous } = createTestEvent('invoice.paid');
  const { body, headers } = signedRequest(business === undefined ? anonymous : { ...anonymous, business_id: business }, secret);
  return { rawBody: body, headers, method: 'POST', url: '/partners/webhooks?attempt=2' };
}

/** A secret function that counts its calls. */
function counted(lookup: WebhookSecretLookup = ({ businessId }) => (businessId === undefined ? undefined : SECRETS[businessId])) {
  const calls: (string | undefined)[] = [];
  const fn: WebhookSecretLookup = (request) => {
    calls.push(request.businessId);
    return lookup(request);
  };
  return { fn, calls };
}

function receiver(secret: WebhookSecretLookup, extra: Partial<ReceiverOptions> = {}) {
  return createReceiver({ secret, store: memoryStore(), logger: false, ...extra });
}

describe('a secret function', () => {
  it('is told the path without the query and the body’s business id, and its answer verifies', async () => {
    const seen: unknown[] = [];
    const answer = await receiver(({ path, businessId }) => {
      seen.push({ path, businessId });
      return SECRETS[businessId!];
    }).receive(delivery('biz_danube'));
    expect(answer.status).toBe(200);
    expect(seen).toEqual([{ path: '/partners/webhooks', businessId: 'biz_danube' }]);
  });

  it('takes a rotation list: the old secret of a business still verifies', async () => {
    const old = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const answer = await receiver(() => [ALPINE, old]).receive(delivery('biz_alpine', old));
    expect(answer.status).toBe(200);
  });

  it('is not called for a request refused on its headers: missing, malformed or stale', async () => {
    const { fn, calls } = counted();
    const { rawBody, headers } = delivery('biz_alpine');
    const stale = signedRequest(createTestEvent('invoice.paid', { business_id: 'biz_alpine' }), ALPINE, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    const core = receiver(fn);
    expect((await core.receive({ rawBody, headers: { 'content-type': 'application/json' } })).body).toMatchObject({ error: { code: 'MISSING_SIGNATURE' } });
    expect((await core.receive({ rawBody, headers: { ...headers, 'x-svc-timestamp': 'soon' } })).body).toMatchObject({ error: { code: 'MALFORMED_TIMESTAMP' } });
    expect((await core.receive({ rawBody: stale.body, headers: stale.headers })).body).toMatchObject({ error: { code: 'TIMESTAMP_TOO_OLD' } });
    expect(calls).toEqual([]);
  });

  it('answers an undefined answer 401 UNKNOWN_BUSINESS with a warning line, also for a body without business_id', async () => {
    const { logger, lines } = capture();
    const core = receiver(({ businessId }) => (businessId === undefined ? undefined : SECRETS[businessId]), { logger });
    const unknown = await core.receive(delivery('biz_unknown'));
    expect(unknown).toMatchObject({ status: 401, body: { error: { code: 'UNKNOWN_BUSINESS', details: { business_id: 'biz_unknown' } } } });
    const anonymous = await core.receive(delivery(undefined));
    expect(anonymous).toMatchObject({ status: 401, body: { error: { code: 'UNKNOWN_BUSINESS', details: { business_id: null } } } });
    const logged = lines.filter((line) => line.msg === 'webhook delivery');
    expect(logged.map((line) => [line.level, line.status, line.code, line.outcome])).toEqual([
      [40, 401, 'UNKNOWN_BUSINESS', 'rejected'],
      [40, 401, 'UNKNOWN_BUSINESS', 'rejected'],
    ]);
    expect(logged[0]!.reason).toContain('biz_unknown');
  });

  it('answers a lookup slower than secretTimeoutMs 503 SECRET_UNAVAILABLE; its late answer is kept for the retry', async () => {
    let answer!: (secret: string) => void;
    const slow = new Promise<string>((resolve) => (answer = resolve));
    const { fn, calls } = counted(() => slow);
    const { logger, lines } = capture();
    const core = receiver(fn, { secretTimeoutMs: 20, logger });
    const request = delivery('biz_alpine');
    const timedOut = await core.receive(request);
    expect(timedOut).toMatchObject({ status: 503, body: { error: { code: 'SECRET_UNAVAILABLE', details: {} } } });
    const line = lines.find((entry) => entry.msg === 'webhook delivery')!;
    expect(line).toMatchObject({ level: 50, status: 503, code: 'SECRET_UNAVAILABLE', outcome: 'error' });
    expect(line.reason).toContain('20 ms');
    answer(ALPINE);
    await slow;
    expect((await core.receive(request)).status).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it('answers a function that throws or rejects 503 SECRET_UNAVAILABLE, keeping what it threw out of the answer', async () => {
    const throwing = await receiver(() => {
      throw new Error('connection refused to secrets-db:5432');
    }).receive(delivery('biz_alpine'));
    expect(throwing).toMatchObject({ status: 503, body: { error: { code: 'SECRET_UNAVAILABLE' } } });
    expect(JSON.stringify(throwing.body)).not.toContain('secrets-db');
    const rejecting = await receiver(() => Promise.reject(new Error('pool exhausted'))).receive(delivery('biz_alpine'));
    expect(rejecting).toMatchObject({ status: 503, body: { error: { code: 'SECRET_UNAVAILABLE' } } });
  });

  it.each([
    ['an empty string', ''],
    ['an empty list', []],
    ['a list with an empty item', [ALPINE, '']],
    ['a number', 42],
  ])('answers %s 503 SECRET_UNAVAILABLE with a line that names the problem and prints no secret', async (_name, returned) => {
    const { logger, lines, text } = capture();
    const answer = await receiver(() => returned as never, { logger }).receive(delivery('biz_alpine'));
    expect(answer).toMatchObject({ status: 503, body: { error: { code: 'SECRET_UNAVAILABLE' } } });
    const line = lines.find((entry) => entry.msg === 'webhook delivery')!;
    expect(line.reason).toContain('not a whsec_… secret');
    expect(text.join('')).not.toContain(ALPINE);
  });

  it('answers a secret Standard Webhooks cannot decode 503, naming it by position only', async () => {
    const { logger, lines, text } = capture();
    const undecodable = 'whsec_***not-base64***';
    const event = createTestEvent('invoice.paid', { business_id: 'biz_alpine' });
    const body = JSON.stringify(event);
    const { headers } = signStandardWebhook({ id: event.id, payload: body, secret: ALPINE });
    const answer = await receiver(() => [ALPINE, undecodable], { scheme: 'standard-webhooks', logger }).receive({ rawBody: body, headers });
    expect(answer).toMatchObject({ status: 503, body: { error: { code: 'SECRET_UNAVAILABLE' } } });
    expect(lines.find((entry) => entry.msg === 'webhook delivery')!.reason).toContain('secret #2 is not base64');
    expect(text.join('')).not.toContain('not-base64');
  });

  it('keeps its answers: a second delivery of the business calls it no more; an unknown business is asked again', async () => {
    const { fn, calls } = counted();
    const core = receiver(fn);
    expect((await core.receive(delivery('biz_alpine'))).status).toBe(200);
    expect((await core.receive(delivery('biz_alpine'))).status).toBe(200);
    expect((await core.receive(delivery('biz_nobody'))).status).toBe(401);
    expect((await core.receive(delivery('biz_nobody'))).status).toBe(401);
    expect(calls).toEqual(['biz_alpine', 'biz_nobody', 'biz_nobody']);
  });

  it('asks again once an answer is ttlMs old on the receiver’s clock; with secretCache: false, every time', async () => {
    let now = Date.now();
    const { fn, calls } = counted();
    const core = receiver(fn, { secretCache: { ttlMs: 1_000 }, clock: () => now });
    await core.receive(delivery('biz_danube'));
    now += 999;
    await core.receive(delivery('biz_danube'));
    now += 1;
    await core.receive(delivery('biz_danube'));
    expect(calls).toHaveLength(2);

    const uncached = counted();
    const every = receiver(uncached.fn, { secretCache: false });
    for (let i = 0; i < 3; i++) expect((await every.receive(delivery('biz_alpine'))).status).toBe(200);
    expect(uncached.calls).toHaveLength(3);
  });

  it('calls it once for deliveries of one business that arrive together', async () => {
    let answer!: (secret: string) => void;
    const held = new Promise<string>((resolve) => (answer = resolve));
    const { fn, calls } = counted(() => held);
    const core = receiver(fn);
    const together = [core.receive(delivery('biz_alpine')), core.receive(delivery('biz_alpine'))];
    answer(ALPINE);
    expect((await Promise.all(together)).map((response) => response.status)).toEqual([200, 200]);
    expect(calls).toHaveLength(1);
  });

  it('refuses secretCache and secretTimeoutMs beside a fixed secret, and a cache bound that is not a positive integer', () => {
    expect(() => createReceiver({ secret: ALPINE, secretCache: false, store: memoryStore() })).toThrow(ConfigurationError);
    expect(() => createReceiver({ secret: ALPINE, secretTimeoutMs: 100, store: memoryStore() })).toThrow(ConfigurationError);
    const bad = (secretCache: unknown) => () => createReceiver({ secret: () => ALPINE, secretCache: secretCache as false, store: memoryStore() });
    expect(bad({ maxEntries: 0 })).toThrow(ConfigurationError);
    expect(bad({ maxEntries: 1.5 })).toThrow(ConfigurationError);
    expect(bad({ size: 10 })).toThrow(ConfigurationError);
    expect(bad(true)).toThrow(ConfigurationError);
    expect(() => createReceiver({ secret: 42 as never, store: memoryStore() })).toThrow(/a function/);
  });
});

describe('the resolver behind it', () => {
  /** Engines that count the key lists they derive. */
  function engines() {
    const derived: string[][] = [];
    return {
      derived,
      hmac: (secrets: readonly string[]) => (derived.push([...secrets]), NODE_PLATFORM.hmac(secrets)),
      standard: NODE_PLATFORM.standard,
    };
  }
  const request = (businessId: string) => ({ url: '/webhooks', headers: {}, rawBody: JSON.stringify({ business_id: businessId }) });

  it('keeps at most maxEntries answers, dropping the least recently used', () => {
    const { fn, calls } = counted(({ businessId }) => `whsec_${businessId}`);
    const resolver = new SecretResolver({ lookup: fn, timeoutMs: 1_000, cache: { maxEntries: 2, ttlMs: 60_000 }, withStandard: false, engines: engines(), clock: Date.now });
    // A function that answers at once is answered at once: nothing is awaited.
    for (const id of ['a', 'b', 'a', 'c', 'a', 'b']) expect(resolver.keysFor(request(id))).not.toBeInstanceOf(Promise);
    // a, b asked; a hit; c evicts b (a was used more recently); a hit; b asked again, evicting c.
    expect(calls).toEqual(['a', 'b', 'c', 'b']);
  });

  it('derives the keys of a secret once, also for two businesses that share it or an answer asked again', () => {
    const counting = engines();
    let now = 0;
    const resolver = new SecretResolver({ lookup: () => 'whsec_shared', timeoutMs: 1_000, cache: { maxEntries: 10, ttlMs: 10 }, withStandard: false, engines: counting, clock: () => now });
    const first = resolver.keysFor(request('a'));
    expect(resolver.keysFor(request('b'))).toBe(first);
    now += 10;
    expect(resolver.keysFor(request('a'))).toBe(first);
    expect(counting.derived).toEqual([['whsec_shared']]);
  });
});

describe('what the function is told', () => {
  it('reads business_id from a JSON body only: absent, not a string, too long or not JSON is undefined', () => {
    expect(businessIdOf('{"business_id":"biz_1"}')).toBe('biz_1');
    expect(businessIdOf(new TextEncoder().encode('{"business_id":"biz_2"}'))).toBe('biz_2');
    expect(businessIdOf('{"business_id":7}')).toBeUndefined();
    expect(businessIdOf('{"business_id":""}')).toBeUndefined();
    expect(businessIdOf(JSON.stringify({ business_id: 'b'.repeat(257) }))).toBeUndefined();
    expect(businessIdOf(JSON.stringify({ business_id: 'b'.repeat(256) }))).toBe('b'.repeat(256));
    expect(businessIdOf('[1, 2]')).toBeUndefined();
    expect(businessIdOf('{"business_id": "biz_')).toBeUndefined();
  });

  it('has the headers with lower-case names, from node objects and Fetch Headers', () => {
    expect(headerRecord({ 'X-Trace': 'a', accept: ['x', 'y'], skipped: undefined })).toEqual({ 'x-trace': 'a', accept: 'x, y' });
    expect(headerRecord(new Headers({ 'X-Trace': 'b' }))).toEqual({ 'x-trace': 'b' });
  });

  it('has the path of a path or an absolute URL, without the query and a trailing slash', () => {
    expect(urlPath('/a/b/?x=1')).toBe('/a/b');
    expect(urlPath('https://partner.example/hooks/biz_1?x=1')).toBe('/hooks/biz_1');
    expect(urlPath(undefined)).toBe('');
    expect(urlPath('not a url')).toBe('');
  });
});
