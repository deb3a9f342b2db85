import { sampleEvent } from '../events/sample-event.js';
import { signPayload } from '../signing/signature.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../signing/signature-scheme.js';
import { signStandardWebhook } from '../signing/standard-webhooks.js';
import { PRIVATE_KEY_PREFIX, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '../signing/standard-webhooks-scheme.js';
import { signatureCases, VECTORS_NOW, type CaseKeys, type SignatureCase } from './test-vectors.js';

/*
 * The cases of `acct-webhook conformance` and how their answers are judged, without any I/O: the
 * signature cases of the test vectors, signed with the receiver's own secret and the current time
 * (valid, tampered body, wrong secret, stale, future, malformed and missing headers, one valid
 * event of each of the 18 types), plus what only a live receiver can show: the same event twice,
 * and a body over the size limit. The CLI sends them (src/cli/conformance/) and prints the table.
 *
 * What "expected" means comes from the platform's contract, as leniently as it allows:
 *   - a valid delivery, and the same delivery again: any 2xx (2xx acknowledges; the same event
 *     may arrive more than once, so a duplicate is acknowledged as well);
 *   - a signature that does not match, a timestamp outside the 300 s window, malformed or missing
 *     headers: any 4xx (this package answers 401, and 400 for malformed or missing headers);
 *   - a body over the limit: 413;
 *   - two cases where the contract leaves the choice to the receiver: a signature in upper-case
 *     hex (the contract writes lower-case hex) and a Standard Webhooks timestamp with a fraction
 *     (the standard's libraries read the seconds before the dot): 2xx or 4xx, never 5xx.
 * Anything else — 3xx, 5xx, no answer — fails.
 */

/** The signature scheme a conformance run signs with: the receiver's. */
export type ConformanceScheme = 'svc' | 'standard-webhooks';

/** The schemes a conformance run can sign with. */
export const CONFORMANCE_SCHEMES: readonly ConformanceScheme[] = ['svc', 'standard-webhooks'];

/**
 * Seconds between the window's edge and the edge, stale and future cases of a run: a request
 * signed in one second may be checked in the next, on another clock.
 * @default 30
 */
export const CONFORMANCE_MARGIN_SECONDS = 30;

/** What a case counts as a pass. */
export type Expectation =
  /** Any 2xx. */
  | { kind: 'success'; status: number }
  /** Any 4xx; `status` and `code` are what this package's receiver answers. */
  | { kind: 'refusal'; status: number; code?: string | undefined }
  /** Exactly `status` (413 for a body over the limit). */
  | { kind: 'exactly'; status: number; code?: string | undefined }
  /** 2xx or 4xx: the contract leaves the choice to the receiver. */
  | { kind: 'either'; status: number; code?: string | undefined };

/** One HTTP request of a case: POST, these headers, this body. */
export interface ConformanceRequest {
  headers: Record<string, string>;
  body: string;
}

/** One row of the table: the requests sent (most cases one, the duplicate two) and what each must get. */
export interface ConformanceCase {
  /** e.g. `valid`, `stale`, `type/invoice.paid`, `duplicate`, `oversized-body`. */
  name: string;
  description: string;
  expected: Expectation;
  /** The requests, signed for `nowSeconds` (Unix seconds): call it just before sending. */
  requests(nowSeconds: number): ConformanceRequest[];
}

/** What {@link conformanceCases} builds the cases from. */
export interface ConformanceOptions {
  scheme: ConformanceScheme;
  /**
   * The receiver's secret: `whsec_…` (for Standard Webhooks its base64 key) signs `v1`; with
   * `standard-webhooks`, a `whsk_…` private key signs `v1a` (the receiver holds its `whpk_…`).
   */
  secret: string;
  /** Other keys of each kind, none of them the receiver's: the wrong-secret cases sign with them. */
  wrongKeys: CaseKeys['wrong'];
  /** Makes each case's event id (`webhook-id`); fresh ones per run, so that a run never meets the last one's. */
  eventId: (name: string) => string;
  /** The receiver's body limit in bytes: the oversized case sends one byte more. */
  maxBodyBytes: number;
}

/** What the receiver did with one request: its status and the `error.code` of its body, or no answer. */
export type ConformanceAnswer = { status: number; code?: string | undefined } | { error: string };

/** Every case of a run against a receiver of `options.scheme`, in the order they are sent. */
export function conformanceCases(options: ConformanceOptions): ConformanceCase[] {
  const keys = keysOf(options);
  const prefix = options.scheme === 'svc' ? 'svc/' : `standard-webhooks/${options.secret.startsWith(PRIVATE_KEY_PREFIX) ? 'v1a' : 'v1'}/`;
  const signedAt = memoize((now: number) =>
    new Map(
      signatureCases({ keys, now, eventId: options.eventId, fixedSecret: true, everyType: true, marginSeconds: CONFORMANCE_MARGIN_SECONDS }).map((testCase) => [
        testCase.name.slice(prefix.length),
        testCase,
      ]),
    ),
  );
  // Built once to learn the names and expectations; each send signs again for its own moment.
  const template = signedAt(VECTORS_NOW);
  const cases: ConformanceCase[] = [...template.values()].map((testCase) => {
    const name = testCase.name.slice(prefix.length);
    return {
      name,
      description: testCase.description,
      expected: expectationOf(testCase),
      requests: (now) => [requestOf(signedAt(now).get(name)!)],
    };
  });
  const sign = (id: string, body: string, now: number): Record<string, string> =>
    options.scheme === 'svc'
      ? { 'content-type': 'application/json', ...signPayload({ payload: body, secret: options.secret, timestamp: now }).headers }
      : { 'content-type': 'application/json', ...signStandardWebhook({ id, payload: body, secret: options.secret, timestamp: now }).headers };
  const timestampHeader = options.scheme === 'svc' ? TIMESTAMP_HEADER : WEBHOOK_TIMESTAMP_HEADER;
  const signatureHeader = options.scheme === 'svc' ? SIGNATURE_HEADER : WEBHOOK_SIGNATURE_HEADER;
  const duplicateId = options.eventId('duplicate');
  const missingTimestampId = options.eventId('missing-timestamp');
  const missingHeadersId = options.eventId('missing-headers');
  const oversizedId = options.eventId('oversized-body');
  cases.push(
    {
      name: 'duplicate',
      description: 'a valid delivery, then the same one again (same event id): the second is acknowledged too',
      expected: { kind: 'success', status: 200 },
      requests: (now) => {
        const body = JSON.stringify(sampleEvent('invoice.paid', { id: duplicateId, now: now * 1000 }));
        const request = { headers: sign(duplicateId, body, now), body };
        return [request, request];
      },
    },
    {
      name: 'missing-timestamp',
      description: `no ${timestampHeader} header`,
      expected: { kind: 'refusal', status: 400, code: 'MISSING_TIMESTAMP' },
      requests: (now) => {
        const body = JSON.stringify(sampleEvent('invoice.paid', { id: missingTimestampId, now: now * 1000 }));
        const { [timestampHeader]: _dropped, ...headers } = sign(missingTimestampId, body, now);
        return [{ headers, body }];
      },
    },
    {
      name: 'missing-headers',
      description: `none of the signature headers (${signatureHeader}, ${timestampHeader}${options.scheme === 'svc' ? '' : ', webhook-id'})`,
      expected: { kind: 'refusal', status: 400, code: options.scheme === 'svc' ? 'MISSING_SIGNATURE' : 'MISSING_WEBHOOK_ID' },
      requests: (now) => [{ headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleEvent('invoice.paid', { id: missingHeadersId, now: now * 1000 })) }],
    },
    {
      name: 'oversized-body',
      description: `a genuine delivery of ${options.maxBodyBytes + 1} bytes, one over the limit of ${options.maxBodyBytes}`,
      expected: { kind: 'exactly', status: 413, code: 'PAYLOAD_TOO_LARGE' },
      requests: (now) => {
        const body = oversizedBody(oversizedId, now, options.maxBodyBytes + 1);
        return [{ headers: sign(oversizedId, body, now), body }];
      },
    },
  );
  return cases;
}

/** Whether `answer` passes `expected`. */
export function judgeAnswer(expected: Expectation, answer: ConformanceAnswer): boolean {
  if ('error' in answer) return false;
  const { status } = answer;
  const success = status >= 200 && status <= 299;
  const refusal = status >= 400 && status <= 499;
  switch (expected.kind) {
    case 'success':
      return success;
    case 'refusal':
      return refusal;
    case 'exactly':
      return status === expected.status;
    case 'either':
      return success || refusal;
  }
}

/** The expectation as the table shows it: `2xx`, `4xx (401 TIMESTAMP_TOO_OLD)`, `413`, `2xx or 4xx (400 …)`. */
export function describeExpectation(expected: Expectation): string {
  const code = 'code' in expected && expected.code !== undefined ? ` ${expected.code}` : '';
  switch (expected.kind) {
    case 'success':
      return '2xx';
    case 'refusal':
      return `4xx (${expected.status}${code})`;
    case 'exactly':
      return `${expected.status}`;
    case 'either':
      return expected.status >= 400 ? `2xx or 4xx (${expected.status}${code})` : '2xx or 4xx';
  }
}

/** An answer as the table shows it: `401 SIGNATURE_MISMATCH`, `200`, `no answer (…)`. */
export function describeAnswer(answer: ConformanceAnswer): string {
  if ('error' in answer) return `no answer (${answer.error})`;
  return answer.code === undefined ? String(answer.status) : `${answer.status} ${answer.code}`;
}

function expectationOf(testCase: SignatureCase): Expectation {
  const { status, code } = testCase.expected;
  if (testCase.expected.either_conforms === true) return { kind: 'either', status, code };
  return testCase.expected.verdict === 'accepted' ? { kind: 'success', status } : { kind: 'refusal', status, code };
}

function requestOf(testCase: SignatureCase): ConformanceRequest {
  return { headers: testCase.headers, body: testCase.body };
}

function keysOf(options: ConformanceOptions): CaseKeys {
  if (options.scheme === 'svc') return { svc: options.secret, wrong: options.wrongKeys };
  if (options.secret.startsWith(PRIVATE_KEY_PREFIX)) return { privateKey: options.secret, wrong: options.wrongKeys };
  return { standard: options.secret, wrong: options.wrongKeys };
}

/** A valid invoice.paid of exactly `bytes` bytes (at least its size without padding): an extra field of the object pads it. */
function oversizedBody(id: string, now: number, bytes: number): string {
  const event = sampleEvent('invoice.paid', { id, now: now * 1000 });
  const padded = (padding: string) => JSON.stringify({ ...event, data: { ...event.data, object: { ...event.data.object, padding } } });
  const length = new TextEncoder().encode(padded('')).byteLength;
  return padded('x'.repeat(Math.max(0, bytes - length)));
}

function memoize<T>(make: (now: number) => T): (now: number) => T {
  let last: { now: number; value: T } | undefined;
  return (now) => {
    if (last?.now !== now) last = { now, value: make(now) };
    return last.value;
  };
}
