import { EVENT_TYPES, type EventType } from '../events/catalog.js';
import { buildEvent } from '../events/build.js';
import { sampleEvent } from '../events/sample-event.js';
import { SAMPLE_BUSINESS_ID, SAMPLE_CUSTOMER } from '../events/samples.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../signing/signature-scheme.js';
import { signPayload } from '../signing/signature.js';
import { publicKeyOf, signStandardWebhook } from '../signing/standard-webhooks.js';

/*
 * Signature cases for any receiver in any language: the platform's scheme (`x-svc-signature`)
 * and Standard Webhooks `v1` (HMAC) and `v1a` (ed25519), each valid, tampered, under a wrong
 * secret, stale, in the future, with several signatures, an unknown version, malformed headers
 * and a non-ASCII body, with the verdict expected. One source for schemas/test-vectors.json
 * (fixed secrets and a fixed `now`, so the file is reproducible) and for `acct-webhook
 * conformance` (the user's secret, the current time, fresh ids).
 */

/** Which signature a case is about. */
export type VectorScheme = 'svc' | 'standard-webhooks';
export type VectorVersion = 'v1' | 'v1a';

/** One signed request and what a correct receiver answers. */
export interface SignatureCase {
  /** Unique, e.g. `standard-webhooks/v1/tampered-body`. */
  name: string;
  scheme: VectorScheme;
  /** `v1` for the platform's scheme and Standard Webhooks' HMAC, `v1a` for ed25519. */
  version: VectorVersion;
  description: string;
  /** What the receiver verifies with: `whsec_…` (or, for `v1a`, the `whpk_…` public key); several while rotating. */
  secrets: string[];
  headers: Record<string, string>;
  /** The body exactly as sent, UTF-8. */
  body: string;
  expected: {
    verdict: 'accepted' | 'refused';
    /** What this package's receiver answers: 200, 400 (malformed) or 401 (not authentic). */
    status: number;
    /** This package's error code for a refusal. */
    code?: string;
    /**
     * Present (true) where the contract leaves the verdict to the receiver: the other verdict
     * conforms too, and `verdict` is this package's (a signature in upper-case hex; a Standard
     * Webhooks timestamp with a fraction, which the standard's libraries accept).
     */
    either_conforms?: true;
  };
}

/** The keys the cases are signed with. */
export interface CaseKeys {
  /** `whsec_…` of the platform's scheme (the whole string is the HMAC key). */
  svc?: string | undefined;
  /** `whsec_…` in base64, Standard Webhooks' `v1`. */
  standard?: string | undefined;
  /** `whsk_…`, Standard Webhooks' `v1a`; the receiver has its `whpk_` public key. */
  privateKey?: string | undefined;
  /** Another secret of each kind, for the wrong-secret and several-signature cases. */
  wrong: { svc: string; standard: string; privateKey: string };
}

export interface CaseOptions {
  keys: CaseKeys;
  /** Unix seconds the cases are signed around. */
  now: number;
  /** Makes the `webhook-id` / event id of a case: fixed for the vectors, fresh for a conformance run. */
  eventId: (name: string) => string;
  /** Only cases whose receiver holds exactly the one secret given (a conformance run cannot change the receiver's). @default false */
  fixedSecret?: boolean;
  /** One valid case per event type of the catalog. @default false */
  everyType?: boolean;
  /**
   * Seconds kept between the window's edge and the edge-of-window, stale and future cases, for
   * requests that cross a network and a second boundary on the way (a conformance run).
   * @default 0
   */
  marginSeconds?: number;
}

/** How far outside the window the stale and future cases are signed: one second past it (plus the margin). */
const OUTSIDE = DEFAULT_TOLERANCE_SECONDS + 1;

type Signer = (id: string, body: string, timestamp: number, secrets: readonly string[]) => Record<string, string>;

interface Kind {
  scheme: VectorScheme;
  version: VectorVersion;
  prefix: string;
  signing: string;
  wrong: string;
  /** What the receiver holds for `signing`. */
  verifying: string;
  /** The wrong key as the receiver would hold it (for a rotation list). */
  wrongVerifying: string;
  sign: Signer;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

const signSvc: Signer = (_id, body, timestamp, secrets) => ({ ...JSON_HEADERS, ...signPayload({ payload: body, secret: secrets[0]!, timestamp }).headers });
const signStandard: Signer = (id, body, timestamp, secrets) => ({ ...JSON_HEADERS, ...signStandardWebhook({ id, payload: body, secret: secrets, timestamp }).headers });

/** The cases for the keys given: each scheme whose key is present. */
export function signatureCases(options: CaseOptions): SignatureCase[] {
  const { keys } = options;
  const kinds: Kind[] = [];
  if (keys.svc !== undefined) {
    kinds.push({ scheme: 'svc', version: 'v1', prefix: 'svc', signing: keys.svc, wrong: keys.wrong.svc, verifying: keys.svc, wrongVerifying: keys.wrong.svc, sign: signSvc });
  }
  if (keys.standard !== undefined) {
    kinds.push({ scheme: 'standard-webhooks', version: 'v1', prefix: 'standard-webhooks/v1', signing: keys.standard, wrong: keys.wrong.standard, verifying: keys.standard, wrongVerifying: keys.wrong.standard, sign: signStandard });
  }
  if (keys.privateKey !== undefined) {
    kinds.push({
      scheme: 'standard-webhooks',
      version: 'v1a',
      prefix: 'standard-webhooks/v1a',
      signing: keys.privateKey,
      wrong: keys.wrong.privateKey,
      verifying: publicKeyOf(keys.privateKey),
      wrongVerifying: publicKeyOf(keys.wrong.privateKey),
      sign: signStandard,
    });
  }
  return kinds.flatMap((kind) => casesOf(kind, options));
}

function casesOf(kind: Kind, options: CaseOptions): SignatureCase[] {
  const { now } = options;
  const margin = options.marginSeconds ?? 0;
  const outside = OUTSIDE + margin;
  const inside = DEFAULT_TOLERANCE_SECONDS - margin;
  const cases: SignatureCase[] = [];
  const add = (
    name: string,
    description: string,
    make: (id: string) => { body: string; headers: Record<string, string> },
    expected: SignatureCase['expected'],
    secrets: string[] = [kind.verifying],
  ): void => {
    const full = `${kind.prefix}/${name}`;
    const { body, headers } = make(options.eventId(full));
    cases.push({ name: full, scheme: kind.scheme, version: kind.version, description, secrets, headers, body, expected });
  };
  const accepted = { verdict: 'accepted' as const, status: 200 };
  const refused = (status: number, code: string) => ({ verdict: 'refused' as const, status, code });
  const signed = (id: string, body = bodyOf(id), timestamp = now, secrets: readonly string[] = [kind.signing]) => ({ body, headers: kind.sign(id, body, timestamp, secrets) });
  const standard = kind.scheme === 'standard-webhooks';
  const signatureHeader = standard ? 'webhook-signature' : 'x-svc-signature';
  const timestampHeader = standard ? 'webhook-timestamp' : 'x-svc-timestamp';

  add('valid', 'signed now with the right secret', (id) => signed(id), accepted);
  add('non-ascii-body', 'a body with umlauts, a dash and the euro sign: the signature covers its UTF-8 bytes', (id) => signed(id, nonAsciiBodyOf(id)), accepted);
  add('window-edge', `signed ${inside} s ago: still inside the window`, (id) => signed(id, bodyOf(id), now - inside), accepted);
  add('tampered-body', 'signed, then one digit of the amount changed', (id) => {
    const request = signed(id);
    return { ...request, body: tamper(request.body) };
  }, refused(401, 'SIGNATURE_MISMATCH'));
  add('wrong-secret', 'signed with another secret than the receiver has', (id) => signed(id, bodyOf(id), now, [kind.wrong]), refused(401, 'SIGNATURE_MISMATCH'));
  add('stale', `signed ${outside} s ago`, (id) => signed(id, bodyOf(id), now - outside), refused(401, 'TIMESTAMP_TOO_OLD'));
  add('future', `signed ${outside} s ahead`, (id) => signed(id, bodyOf(id), now + outside), refused(401, 'TIMESTAMP_IN_FUTURE'));
  if (standard) {
    add('several-signatures', 'two signatures, the first under another key (a rotation): any one valid is enough', (id) => signed(id, bodyOf(id), now, [kind.wrong, kind.signing]), accepted);
    add('unknown-version-beside-valid', 'a v9 signature before the valid one: unknown versions are skipped', (id) => {
      const request = signed(id);
      return { ...request, headers: { ...request.headers, [signatureHeader]: `v9,${'A'.repeat(43)}= ${request.headers[signatureHeader]!}` } };
    }, accepted);
    add('unknown-version-only', 'the right signature, but labelled v9', (id) => {
      const request = signed(id);
      return { ...request, headers: { ...request.headers, [signatureHeader]: request.headers[signatureHeader]!.replace(/^v1a?,/, 'v9,') } };
    }, refused(401, 'SIGNATURE_MISMATCH'));
    add('signature-without-version', 'the signature without its "v1," label', (id) => {
      const request = signed(id);
      return { ...request, headers: { ...request.headers, [signatureHeader]: request.headers[signatureHeader]!.replace(/^v1a?,/, '') } };
    }, refused(400, 'MALFORMED_SIGNATURE'));
    add('missing-webhook-id', 'no webhook-id header', (id) => {
      const { 'webhook-id': _dropped, ...headers } = signed(id).headers;
      return { body: bodyOf(id), headers };
    }, refused(400, 'MISSING_WEBHOOK_ID'));
  } else {
    if (options.fixedSecret !== true) {
      add('several-secrets', 'the receiver holds two secrets while rotating; the request is signed with the second', (id) => signed(id), accepted, [kind.wrongVerifying, kind.verifying]);
    }
    add('upper-case-hex', 'the same signature in upper-case hex: the same bytes (the contract writes lower-case hex, so refusing it conforms too)', (id) => {
      const request = signed(id);
      return { ...request, headers: { ...request.headers, [signatureHeader]: request.headers[signatureHeader]!.toUpperCase() } };
    }, { ...accepted, either_conforms: true });
    add('not-hex', 'a signature that is not hexadecimal', (id) => {
      const request = signed(id);
      return { ...request, headers: { ...request.headers, [signatureHeader]: `sha256=${request.headers[signatureHeader]!}` } };
    }, refused(400, 'MALFORMED_SIGNATURE'));
  }
  add('missing-signature', `no ${signatureHeader} header`, (id) => {
    const { [signatureHeader]: _dropped, ...headers } = signed(id).headers;
    return { body: bodyOf(id), headers };
  }, refused(400, 'MISSING_SIGNATURE'));
  add('timestamp-in-milliseconds', `${timestampHeader} in milliseconds, signed as sent`, (id) => signed(id, bodyOf(id), now * 1000), refused(401, 'TIMESTAMP_IN_FUTURE'));
  const lenient = standard ? ' (the standardwebhooks and svix libraries read the whole seconds before the dot and accept it; whole seconds only is stricter)' : '';
  add('malformed-timestamp', `${timestampHeader} that is not whole seconds${lenient}`, (id) => {
    const request = signed(id);
    return { ...request, headers: { ...request.headers, [timestampHeader]: `${now}.5` } };
  }, standard ? { ...refused(400, 'MALFORMED_TIMESTAMP'), either_conforms: true } : refused(400, 'MALFORMED_TIMESTAMP'));
  if (options.everyType === true) {
    for (const type of EVENT_TYPES) add(`type/${type}`, `a valid ${type}`, (id) => signed(id, typeBodyOf(type, id, now)), accepted);
  }
  return cases;
}

/** A fixed moment for the shipped vectors: 2026-01-01T00:00:00Z. */
export const VECTORS_NOW = 1_767_225_600;

/** The shipped vectors' keys: fixed, test-only, never a real secret. */
export const VECTOR_KEYS: CaseKeys = {
  svc: 'whsec_testVectorsPlatformSecret0000000000',
  standard: `whsec_${base64Of(Array.from({ length: 32 }, (_, i) => i))}`,
  privateKey: `whsk_${base64Of(Array.from({ length: 32 }, (_, i) => 255 - i))}`,
  wrong: {
    svc: 'whsec_testVectorsAnotherSecret000000000000',
    standard: `whsec_${base64Of(Array.from({ length: 32 }, () => 7))}`,
    privateKey: `whsk_${base64Of(Array.from({ length: 32 }, () => 9))}`,
  },
};

/** schemas/test-vectors.json. */
export interface TestVectors {
  description: string;
  /** Check every case as if the time were this (Unix seconds). */
  now: number;
  tolerance_seconds: number;
  /** The number of cases of each scheme and version. */
  counts: Record<string, number>;
  cases: SignatureCase[];
}

/** The shipped test vectors: the same file on every build. */
export function testVectors(): TestVectors {
  const cases = signatureCases({ keys: VECTOR_KEYS, now: VECTORS_NOW, eventId: (name) => `evt_vector_${name.replace(/[^a-z0-9]+/gi, '_')}` });
  const counts: Record<string, number> = {};
  for (const testCase of cases) {
    const key = testCase.scheme === 'svc' ? 'svc' : `${testCase.scheme}/${testCase.version}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return {
    description:
      'Signature test vectors of acct-webhook: the platform scheme (x-svc-signature) and Standard Webhooks v1 and v1a. ' +
      'Verify each case with its secrets and headers as if the time were `now`, with a tolerance of `tolerance_seconds`; ' +
      '`expected.verdict` is what a correct receiver decides. The keys are for tests only.',
    now: VECTORS_NOW,
    tolerance_seconds: DEFAULT_TOLERANCE_SECONDS,
    counts,
    cases,
  };
}

function bodyOf(id: string): string {
  return JSON.stringify(sampleEvent('invoice.paid', { id, now: 1_767_225_000_000, correlation_id: 'cor_vectors' }));
}

function nonAsciiBodyOf(id: string): string {
  const customer = { ...SAMPLE_CUSTOMER, name: 'Bäckerei Huber GmbH – Café „Zur Schönen Aussicht“ €' };
  return JSON.stringify(buildEvent('customer.created', customer, { business_id: SAMPLE_BUSINESS_ID, id, now: 1_767_225_000_000, correlation_id: 'cor_vectors' }));
}

function typeBodyOf(type: EventType, id: string, now: number): string {
  return JSON.stringify(sampleEvent(type, { id, now: now * 1000 }));
}

/** One digit of the body changed: the first of the first amount. */
function tamper(body: string): string {
  const index = body.indexOf('"amount":') + '"amount":'.length;
  const digit = body[index]!;
  return `${body.slice(0, index)}${digit === '9' ? '0' : String(Number(digit) + 1)}${body.slice(index + 1)}`;
}

function base64Of(bytes: readonly number[]): string {
  return btoa(String.fromCharCode(...bytes));
}
