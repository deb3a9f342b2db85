import { readFileSync } from 'node:fs';
import * as ed from '@noble/ed25519';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReceiver, memoryStore, verifySignature, verifyStandardWebhook } from '../../src/index.js';
import type { SignatureCase, TestVectors } from '../../src/catalog/test-vectors.js';

/*
 * schemas/test-vectors.json as shipped (test/catalog/shipped.test.ts checks it is what the build
 * writes): every case gets its expected verdict from this package's verifiers and receiver, and
 * the Standard Webhooks v1 cases the same verdict from the reference `standardwebhooks` package
 * and from svix; the accepted v1a cases' signatures verify with @noble/ed25519.
 */

const vectors = JSON.parse(readFileSync('schemas/test-vectors.json', 'utf8')) as TestVectors;
const NOW_MS = vectors.now * 1000;
const byName = (list: readonly SignatureCase[]) => list.map((testCase) => [testCase.name, testCase] as const);

function verdictOf(check: () => unknown): { verdict: 'accepted' | 'refused'; code?: string | undefined } {
  try {
    check();
    return { verdict: 'accepted' };
  } catch (error) {
    return { verdict: 'refused', code: (error as { code?: string }).code };
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('schemas/test-vectors.json', () => {
  it('has cases of every scheme and kind the vectors promise', () => {
    expect(vectors.counts).toEqual({ svc: 13, 'standard-webhooks/v1': 15, 'standard-webhooks/v1a': 15 });
    const kinds = new Set(vectors.cases.map((testCase) => testCase.name.split('/').at(-1)));
    for (const kind of ['valid', 'tampered-body', 'wrong-secret', 'stale', 'future', 'several-signatures', 'unknown-version-only', 'missing-signature', 'malformed-timestamp', 'non-ascii-body']) {
      expect(kinds).toContain(kind);
    }
    expect(vectors.cases.filter((testCase) => testCase.expected.verdict === 'accepted').length).toBeGreaterThan(10);
    expect(vectors.cases.some((testCase) => [...testCase.body].some((char) => char.charCodeAt(0) > 127))).toBe(true);
  });

  it.each(byName(vectors.cases))("%s: this package's verifier decides as expected", (_name, testCase) => {
    const got = verdictOf(() =>
      testCase.scheme === 'svc'
        ? verifySignature({ payload: testCase.body, signature: testCase.headers['x-svc-signature'], timestamp: testCase.headers['x-svc-timestamp'], secret: testCase.secrets, now: NOW_MS })
        : verifyStandardWebhook({
            payload: testCase.body,
            id: testCase.headers['webhook-id'],
            timestamp: testCase.headers['webhook-timestamp'],
            signature: testCase.headers['webhook-signature'],
            secret: testCase.secrets,
            now: NOW_MS,
          }),
    );
    expect(got).toEqual(testCase.expected.verdict === 'accepted' ? { verdict: 'accepted' } : { verdict: 'refused', code: testCase.expected.code });
  });

  it.each(byName(vectors.cases))('%s: the receiver answers the expected status and code', async (_name, testCase) => {
    const receiver = createReceiver({ secret: testCase.secrets, scheme: testCase.scheme, store: memoryStore(), logger: false, clock: () => NOW_MS });
    const response = await receiver.receive({ rawBody: Buffer.from(testCase.body, 'utf8'), headers: testCase.headers, method: 'POST' });
    expect(response.status).toBe(testCase.expected.status);
    if (testCase.expected.code !== undefined) expect(response.body).toMatchObject({ error: { code: testCase.expected.code } });
    await receiver.close();
  });

  /** Where the reference libraries are more lenient than the vectors (each case's description says so). */
  const PEERS_ACCEPT = new Set(['standard-webhooks/v1/malformed-timestamp']);
  const v1 = vectors.cases.filter((testCase) => testCase.scheme === 'standard-webhooks' && testCase.version === 'v1');
  it.each(byName(v1))('%s: standardwebhooks and svix decide the same', (_name, testCase) => {
    vi.useFakeTimers({ now: NOW_MS, toFake: ['Date'] });
    const expected = PEERS_ACCEPT.has(testCase.name) ? 'accepted' : testCase.expected.verdict;
    const secret = testCase.secrets[0]!;
    expect(verdictOf(() => new StandardWebhook(secret).verify(testCase.body, testCase.headers)).verdict).toBe(expected);
    expect(verdictOf(() => new SvixWebhook(secret).verify(testCase.body, testCase.headers)).verdict).toBe(expected);
  });

  const v1a = vectors.cases.filter((testCase) => testCase.version === 'v1a' && testCase.expected.verdict === 'accepted');
  it.each(byName(v1a))('%s: a v1a signature of the header verifies with @noble/ed25519', async (_name, testCase) => {
    const message = new TextEncoder().encode(`${testCase.headers['webhook-id']}.${testCase.headers['webhook-timestamp']}.${testCase.body}`);
    const key = Buffer.from(testCase.secrets[0]!.slice('whpk_'.length), 'base64');
    const entries = testCase.headers['webhook-signature']!.split(' ').filter((entry) => entry.startsWith('v1a,'));
    const results = await Promise.all(entries.map((entry) => ed.verifyAsync(Buffer.from(entry.slice(4), 'base64'), message, key)));
    expect(results).toContain(true);
  });
});
