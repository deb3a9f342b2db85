import {
  LEGACY_SIGNATURE_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  matchingSecret,
  prepareLegacyVerification,
  prepareVerification,
  type HmacKeys,
  type PreparedVerification,
  type SyncHmacKeys,
  type RawPayload,
  type WebhookSecret,
} from '../signing/signature-scheme.js';
import {
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  prepareStandardVerification,
  type PreparedStandardVerification,
  type StandardKeyCheck,
  type VerifiedStandardWebhook,
} from '../signing/standard-webhooks-scheme.js';
import { readHeader, type HeadersInput } from '../http/headers.js';
import type { Logger } from '../logging/logger.js';
import type { SecretKeys } from './secret-keys.js';

export interface RequestVerificationOptions {
  secret: WebhookSecret;
  toleranceSeconds: number;
  /** Accept `x-service-signature` when `x-svc-signature` is absent. */
  legacySignature: boolean;
  /** The HMAC under the secrets, made once for them: node:crypto's on Node.js, WebCrypto's elsewhere. */
  hmacKeys: HmacKeys;
  /** Which headers are checked: the platform's, Standard Webhooks', or either by what the request carries. @default 'svc' */
  scheme?: ReceiverScheme | undefined;
  /** The Standard Webhooks keys under the secrets, made once (with `scheme` other than `'svc'`). */
  standardKeys?: StandardKeyCheck | undefined;
}

/** The receiver's `scheme` option: `'svc'` (the platform's headers), `'standard-webhooks'`, or `'any'` (by the headers present). */
export type ReceiverScheme = 'svc' | 'standard-webhooks' | 'any';

export interface VerifiedRequest {
  /** Which secret matched: its index in the list (0 for a single secret). */
  secretIndex: number;
  /** The signature that matched: `v1` (either scheme's HMAC), `v1a` (Standard Webhooks' ed25519) or `legacy`. */
  signatureScheme: 'v1' | 'v1a' | 'legacy';
  /** Which scheme's headers verified it. @default 'svc' when absent */
  scheme?: 'svc' | 'standard-webhooks' | undefined;
  /** Standard Webhooks' verified `webhook-id`. */
  webhookId?: string | undefined;
}

/**
 * Verifies a request's signature headers against its raw body: `x-svc-signature` with
 * `x-svc-timestamp`, or — only when allowed and the first is absent — the legacy
 * `x-service-signature`. Shared by the receiver and `constructEvent`. Synchronous with an
 * engine that is (node:crypto's), a promise with one that is not (WebCrypto's).
 */
export function verifyRequest(rawBody: RawPayload, headers: HeadersInput, options: RequestVerificationOptions & { hmacKeys: SyncHmacKeys }, now: number): VerifiedRequest;
export function verifyRequest(rawBody: RawPayload, headers: HeadersInput, options: RequestVerificationOptions, now: number): VerifiedRequest | Promise<VerifiedRequest>;
export function verifyRequest(
  rawBody: RawPayload,
  headers: HeadersInput,
  options: RequestVerificationOptions,
  now: number,
): VerifiedRequest | Promise<VerifiedRequest> {
  const signature = readHeader(headers, SIGNATURE_HEADER);
  if (usesStandard(options.scheme, signature, headers)) return verifyStandard(rawBody, headers, options, now);
  const legacy = options.legacySignature && signature === undefined ? readHeader(headers, LEGACY_SIGNATURE_HEADER) : undefined;
  if (legacy !== undefined) {
    return compare(prepareLegacyVerification({ payload: rawBody, signature: legacy, secret: options.secret, decodeClaim: options.hmacKeys.decodeClaim }), options.hmacKeys, 'legacy');
  }
  const prepared = prepareVerification({
    payload: rawBody,
    signature,
    timestamp: readHeader(headers, TIMESTAMP_HEADER),
    secret: options.secret,
    toleranceSeconds: options.toleranceSeconds,
    now,
    decodeClaim: options.hmacKeys.decodeClaim,
  });
  return compare(prepared, options.hmacKeys, 'v1');
}

/** What the receiver's verify step checks besides the keys. */
export type RequestChecks = Pick<RequestVerificationOptions, 'toleranceSeconds' | 'legacySignature' | 'scheme'>;

/** Stands in for the secrets while a request's headers are checked before its secret is looked up. */
const NOT_YET_KNOWN = ['secret not yet known'];

/**
 * The receiver's verify step: the tolerance, the scheme, the keys it verifies with (fixed, or
 * given per request when a function chooses the secret), and the one warning the first legacy
 * signature gets.
 */
export class RequestVerifier {
  private readonly checks: RequestChecks;
  private readonly settings: RequestVerificationOptions | undefined;
  private warnedLegacy = false;

  constructor(
    { toleranceSeconds, legacySignature, scheme }: RequestChecks,
    keys: SecretKeys | undefined,
    private readonly logger: Logger,
  ) {
    this.checks = { toleranceSeconds, legacySignature, scheme };
    this.settings = keys && { ...this.checks, secret: keys.secret, hmacKeys: keys.hmacKeys, standardKeys: keys.standardKeys };
  }

  /** {@link verifyRequest} with the receiver's settings, and its fixed keys or the ones given. */
  verify(rawBody: RawPayload, headers: HeadersInput, now: number, keys?: SecretKeys): VerifiedRequest | Promise<VerifiedRequest> {
    const settings = keys ? { ...this.checks, secret: keys.secret, hmacKeys: keys.hmacKeys, standardKeys: keys.standardKeys } : this.settings!;
    return verifyRequest(rawBody, headers, settings, now);
  }

  /**
   * Checks what can be checked before the secret is known — the raw body, the signature headers
   * are there and well-formed, the timestamp is fresh — throwing the same errors as
   * {@link verify}: a request refused for those never reaches a secret lookup.
   */
  precheck(rawBody: RawPayload, headers: HeadersInput, now: number): void {
    const signature = readHeader(headers, SIGNATURE_HEADER);
    if (usesStandard(this.checks.scheme, signature, headers)) {
      prepareStandard(rawBody, headers, this.checks.toleranceSeconds, now);
      return;
    }
    const legacy = this.checks.legacySignature && signature === undefined ? readHeader(headers, LEGACY_SIGNATURE_HEADER) : undefined;
    if (legacy !== undefined) prepareLegacyVerification({ payload: rawBody, signature: legacy, secret: NOT_YET_KNOWN });
    else {
      prepareVerification({
        payload: rawBody,
        signature,
        timestamp: readHeader(headers, TIMESTAMP_HEADER),
        secret: NOT_YET_KNOWN,
        toleranceSeconds: this.checks.toleranceSeconds,
        now,
      });
    }
  }

  /** Warns once per receiver when a legacy signature was accepted. */
  warnLegacy(verified: VerifiedRequest): void {
    if (verified.signatureScheme === 'legacy' && !this.warnedLegacy) {
      this.warnedLegacy = true;
      this.logger.warn('Accepting a legacy x-service-signature: it signs no timestamp, so a captured request can be replayed');
    }
  }
}

/**
 * Whether a request is checked the Standard Webhooks way: always with `'standard-webhooks'`;
 * with `'any'` when it has no `x-svc-signature` but a `webhook-signature` or `webhook-id`.
 */
function usesStandard(scheme: ReceiverScheme | undefined, svcSignature: unknown, headers: HeadersInput): boolean {
  if (scheme === 'standard-webhooks') return true;
  if (scheme !== 'any' || svcSignature !== undefined) return false;
  return readHeader(headers, WEBHOOK_SIGNATURE_HEADER) !== undefined || readHeader(headers, WEBHOOK_ID_HEADER) !== undefined;
}

function prepareStandard(rawBody: RawPayload, headers: HeadersInput, toleranceSeconds: number, now: number): PreparedStandardVerification {
  return prepareStandardVerification({
    payload: rawBody,
    id: readHeader(headers, WEBHOOK_ID_HEADER),
    timestamp: readHeader(headers, WEBHOOK_TIMESTAMP_HEADER),
    signature: readHeader(headers, WEBHOOK_SIGNATURE_HEADER),
    toleranceSeconds,
    now,
  });
}

function verifyStandard(rawBody: RawPayload, headers: HeadersInput, options: RequestVerificationOptions, now: number): VerifiedRequest | Promise<VerifiedRequest> {
  const prepared = prepareStandard(rawBody, headers, options.toleranceSeconds, now);
  const matched = options.standardKeys!.match(prepared);
  if (!isPromise(matched)) return standardVerified(matched);
  return matched.then(standardVerified);
}

function standardVerified(matched: VerifiedStandardWebhook): VerifiedRequest {
  return { secretIndex: matched.secretIndex, signatureScheme: matched.version, scheme: 'standard-webhooks', webhookId: matched.id };
}

function compare(prepared: PreparedVerification, keys: HmacKeys, signatureScheme: VerifiedRequest['signatureScheme']): VerifiedRequest | Promise<VerifiedRequest> {
  const digests = keys.digests(prepared.prefix, prepared.body);
  if (!isPromise(digests)) return { secretIndex: matchingSecret(prepared, digests, keys.equal), signatureScheme };
  return digests.then((computed) => ({ secretIndex: matchingSecret(prepared, computed, keys.equal), signatureScheme }));
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}
