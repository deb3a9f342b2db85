import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createReceiver, EVENT_TYPES, memoryStore, signPayload, Webhooks, type WebhookEvent } from '../../src/index.js';
import { createTestEvent, signedHeaders } from '../../src/testing/index.js';

const SECRET = 'whsec_hostileInputSecret000000000000';
const NOW_S = 1_795_000_000;

function receiver() {
  const seen: WebhookEvent[] = [];
  const hooks = new Webhooks().onAny((event) => {
    seen.push(event);
  });
  return { receiver: createReceiver({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false, clock: () => NOW_S * 1000 }), seen };
}

const headerValue = fc.oneof(fc.string({ maxLength: 100 }), fc.constant(undefined));
const body = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 2000 }),
  fc.uint8Array({ maxLength: 2000 }),
  fc.json({ maxDepth: 6 }),
  fc.anything({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? ''),
  fc.constantFrom(...EVENT_TYPES).map((type) => JSON.stringify(createTestEvent(type))),
);

describe('the receiver under hostile input', () => {
  it('answers 4xx (never 5xx) to any unsigned or badly signed request, and runs no handler', async () => {
    const { receiver: target, seen } = receiver();
    await fc.assert(
      fc.asyncProperty(body, headerValue, headerValue, fc.constantFrom(undefined, 'POST', 'GET', 'PUT', 'DELETE'), async (raw, signature, timestamp, method) => {
        const response = await target.receive({ rawBody: raw, headers: { 'x-svc-signature': signature, 'x-svc-timestamp': timestamp }, method });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: 1500 },
    );
    expect(seen).toEqual([]);
  });

  it('answers 200 or 422 (never 5xx) to any correctly signed body, and hands only valid events to handlers', async () => {
    const { receiver: target, seen } = receiver();
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        const { headers } = signPayload({ payload: raw, secret: SECRET, timestamp: NOW_S });
        const response = await target.receive({ rawBody: raw, headers, method: 'POST' });
        expect([200, 422]).toContain(response.status);
      }),
      { numRuns: 1500 },
    );
    for (const event of seen) expect(EVENT_TYPES).toContain(event.type);
  });

  const valid = JSON.stringify(createTestEvent('invoice.paid'));
  const edgeCases: [name: string, raw: string | Buffer, status: number][] = [
    ['an empty body', '', 422],
    ['whitespace only', '  \n ', 422],
    ['invalid UTF-8', Buffer.concat([Buffer.from(valid.slice(0, -1)), Buffer.from([0xc3, 0x28]), Buffer.from('}')]), 422],
    ['a UTF-8 byte order mark', `\uFEFF${valid}`, 422],
    ['deep nesting (100 000 levels)', valid.replace('"data":{', `"deep":${'['.repeat(100_000)}${']'.repeat(100_000)},"data":{`), 200],
    ['deep nesting up to the body limit (500 000 levels)', valid.replace('"data":{', `"deep":${'['.repeat(500_000)}${']'.repeat(500_000)},"data":{`), 200],
    [
      'deep nesting with an escaped key (the checked parse)',
      valid.replace('"data":{', `"\\u0064eep":${'['.repeat(500_000)}${']'.repeat(500_000)},"data":{`),
      200,
    ],
    ['a huge number as amount', valid.replace('"amount":16950', '"amount":1e400'), 422],
    ['an amount beyond 2^53', valid.replace('"amount":16950', '"amount":9007199254740993'), 422],
    ['a __proto__ key', valid.replace('"data":{', '"data":{"__proto__":{"polluted":true},'), 422],
    ['a constructor.prototype key', valid.replace('"data":{', '"constructor":{"prototype":{"polluted":true}},"data":{'), 422],
    ['duplicate keys (the last one counts, as in JSON.parse)', valid.replace('"amount":16950', '"amount":"x","amount":16950'), 200],
  ];

  // %s, not $name: vitest quotes and cuts a $value at 40 characters.
  it.each(edgeCases.map(([name, raw, status]) => [name, status, raw] as const))('%s → %i, no prototype pollution', async (_name, status, raw) => {
    const { receiver: target, seen } = receiver();
    const response = await target.receive({ rawBody: raw, headers: signedHeaders(raw, SECRET, { timestamp: NOW_S }), method: 'POST' });
    expect(response.status).toBe(status);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    for (const event of seen) expect(Object.getPrototypeOf(event.data)).toBe(Object.prototype);
    if (status === 422) expect(await target.store.quarantine.list()).toHaveLength(1);
  });
});
