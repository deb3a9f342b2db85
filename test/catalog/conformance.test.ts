import { describe, expect, it } from 'vitest';
import { conformanceCases, describeAnswer, describeExpectation, judgeAnswer, type ConformanceOptions, type Expectation } from '../../src/catalog/conformance.js';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { createReceiver, memoryStore } from '../../src/index.js';
import { generateSigningKeyPair } from '../../src/signing/standard-webhooks.js';

/*
 * The cases of `acct-webhook conformance` and their judging, without a network: every case's
 * requests, signed for the current second, get an answer from this package's receiver
 * (createReceiver, in memory) that passes; the judging follows the contract's classes.
 */

const NOW = Math.floor(Date.now() / 1000);
const MAX_BODY_BYTES = 4096;
const wrongKeys = { svc: 'whsec_conformanceWrongSecret0000', standard: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, privateKey: generateSigningKeyPair().privateKey };
const options = (scheme: ConformanceOptions['scheme'], secret: string): ConformanceOptions => ({
  scheme,
  secret,
  wrongKeys,
  eventId: (name) => `evt_conformance_unit_${name.replace(/[^a-z0-9]+/gi, '_')}`,
  maxBodyBytes: MAX_BODY_BYTES,
});
const pair = generateSigningKeyPair();
const RUNS = [
  { label: 'svc', options: options('svc', 'whsec_conformanceUnitSecret0000'), receiverSecret: 'whsec_conformanceUnitSecret0000', scheme: 'svc' },
  { label: 'standard-webhooks v1', options: options('standard-webhooks', `whsec_${Buffer.alloc(32, 1).toString('base64')}`), receiverSecret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`, scheme: 'standard-webhooks' },
  { label: 'standard-webhooks v1a', options: options('standard-webhooks', pair.privateKey), receiverSecret: pair.publicKey, scheme: 'standard-webhooks' },
] as const;

describe('conformanceCases', () => {
  it('has the cases the checker promises: signatures, headers, every event type, the duplicate and the oversized body', () => {
    for (const run of RUNS) {
      const names = conformanceCases(run.options).map((testCase) => testCase.name);
      expect(new Set(names).size, run.label).toBe(names.length);
      for (const name of ['valid', 'tampered-body', 'wrong-secret', 'stale', 'future', 'missing-signature', 'missing-timestamp', 'missing-headers', 'malformed-timestamp', 'duplicate', 'oversized-body']) {
        expect(names, run.label).toContain(name);
      }
      expect(names.filter((name) => name.startsWith('type/')), run.label).toEqual(EVENT_TYPES.map((type) => `type/${type}`));
      // A run holds the receiver's one secret: no case needs the receiver to hold two.
      expect(names, run.label).not.toContain('several-secrets');
    }
  });

  // The body limit is the HTTP edge's: the oversized case runs against real servers (test/cli/conformance.integration.test.ts).
  it.each(RUNS)('$label: every case but the oversized body, signed now, gets an answer from this package\'s receiver that passes', async (run) => {
    const receiver = createReceiver({ secret: run.receiverSecret, scheme: run.scheme, store: memoryStore(), logger: false });
    const failed: string[] = [];
    for (const testCase of conformanceCases(run.options).filter(({ name }) => name !== 'oversized-body')) {
      for (const request of testCase.requests(NOW)) {
        const bytes = Buffer.from(request.body, 'utf8');
        const answer = await receiver.receive({ rawBody: bytes, headers: request.headers, method: 'POST' }).catch((error: { status?: number }) => ({ status: error.status ?? 0, body: '' }));
        if (!judgeAnswer(testCase.expected, { status: answer.status })) failed.push(`${testCase.name}: ${answer.status}`);
      }
    }
    expect(failed).toEqual([]);
  });

  it('signs each request for the moment it is sent: a later second, later timestamps', () => {
    const [valid] = conformanceCases(RUNS[0].options);
    expect(valid!.requests(NOW)[0]!.headers['x-svc-timestamp']).toBe(String(NOW));
    expect(valid!.requests(NOW + 7)[0]!.headers['x-svc-timestamp']).toBe(String(NOW + 7));
  });

  it('sends the duplicate twice with the same event id, and an oversized body one byte over the limit', () => {
    const cases = conformanceCases(RUNS[1].options);
    const duplicate = cases.find((testCase) => testCase.name === 'duplicate')!.requests(NOW);
    expect(duplicate).toHaveLength(2);
    expect(duplicate[0]!.headers['webhook-id']).toBe(duplicate[1]!.headers['webhook-id']);
    const [oversized] = cases.find((testCase) => testCase.name === 'oversized-body')!.requests(NOW);
    expect(Buffer.byteLength(oversized!.body)).toBe(MAX_BODY_BYTES + 1);
    expect(JSON.parse(oversized!.body)).toMatchObject({ type: 'invoice.paid' });
  });

  it('refuses a secret the scheme cannot sign with (NO_SECRET) before anything is sent', () => {
    expect(() => conformanceCases(options('standard-webhooks', 'whsec_not base64!'))).toThrow(expect.objectContaining({ code: 'NO_SECRET' }));
  });
});

describe('judgeAnswer', () => {
  const success: Expectation = { kind: 'success', status: 200 };
  const refusal: Expectation = { kind: 'refusal', status: 401, code: 'TIMESTAMP_TOO_OLD' };
  const exactly: Expectation = { kind: 'exactly', status: 413 };
  const either: Expectation = { kind: 'either', status: 400, code: 'MALFORMED_TIMESTAMP' };

  it.each([
    [success, 200, true],
    [success, 204, true],
    [success, 401, false],
    [success, 500, false],
    [refusal, 401, true],
    [refusal, 400, true],
    [refusal, 200, false],
    [refusal, 302, false],
    [refusal, 500, false],
    [exactly, 413, true],
    [exactly, 400, false],
    [exactly, 200, false],
    [either, 200, true],
    [either, 400, true],
    [either, 503, false],
  ] as const)('%o, status %i → %s', (expected, status, pass) => {
    expect(judgeAnswer(expected, { status })).toBe(pass);
  });

  it('fails a case without an answer, whatever was expected', () => {
    for (const expected of [success, refusal, exactly, either]) expect(judgeAnswer(expected, { error: 'ECONNRESET' })).toBe(false);
  });

  it('shows the expectation with the status and code of this package\'s receiver, and the answer with its code', () => {
    expect([success, refusal, exactly, either].map(describeExpectation)).toEqual(['2xx', '4xx (401 TIMESTAMP_TOO_OLD)', '413', '2xx or 4xx (400 MALFORMED_TIMESTAMP)']);
    expect([{ status: 401, code: 'SIGNATURE_MISMATCH' }, { status: 200 }, { error: 'ECONNREFUSED' }].map(describeAnswer)).toEqual(['401 SIGNATURE_MISMATCH', '200', 'no answer (ECONNREFUSED)']);
  });
});
