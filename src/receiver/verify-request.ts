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
import { readHeader, type HeadersInput } from '../http/headers.js';
import type { Logger } from '../logging/logger.js';

export interface RequestVerificationOptions {
  secret: WebhookSecret;
  toleranceSeconds: number;
  /** Accept `x-service-signature` when `x-svc-signature` is absent. */
  legacySignature: boolean;
  /** The HMAC under the secrets, made once for them: node:crypto's on Node.js, WebCrypto's elsewhere. */
  hmacKeys: HmacKeys;
}

export interface VerifiedRequest {
  /** Which secret matched: its index in the list (0 for a single secret). */
  secretIndex: number;
  signatureScheme: 'v1' | 'legacy';
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

/**
 * The receiver's verify step: the secrets, the tolerance and the HMAC it verifies with, and the
 * one warning the first legacy signature gets.
 */
export class RequestVerifier {
  private readonly settings: RequestVerificationOptions;
  private warnedLegacy = false;

  constructor(
    { secret, toleranceSeconds, legacySignature, hmacKeys }: RequestVerificationOptions,
    private readonly logger: Logger,
  ) {
    this.settings = { secret, toleranceSeconds, legacySignature, hmacKeys };
  }

  /** {@link verifyRequest} with the receiver's settings. */
  verify(rawBody: RawPayload, headers: HeadersInput, now: number): VerifiedRequest | Promise<VerifiedRequest> {
    return verifyRequest(rawBody, headers, this.settings, now);
  }

  /** Warns once per receiver when a legacy signature was accepted. */
  warnLegacy(verified: VerifiedRequest): void {
    if (verified.signatureScheme === 'legacy' && !this.warnedLegacy) {
      this.warnedLegacy = true;
      this.logger.warn('Accepting a legacy x-service-signature: it signs no timestamp, so a captured request can be replayed');
    }
  }
}

function compare(prepared: PreparedVerification, keys: HmacKeys, signatureScheme: VerifiedRequest['signatureScheme']): VerifiedRequest | Promise<VerifiedRequest> {
  const digests = keys.digests(prepared.prefix, prepared.body);
  if (!isPromise(digests)) return { secretIndex: matchingSecret(prepared, digests, keys.equal), signatureScheme };
  return digests.then((computed) => ({ secretIndex: matchingSecret(prepared, computed, keys.equal), signatureScheme }));
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}
