import {
  LEGACY_SIGNATURE_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyLegacySignature,
  verifySignature,
  type RawPayload,
  type WebhookSecret,
} from '../signature.js';
import { readHeader, type HeadersInput } from '../http/headers.js';

export interface RequestVerificationOptions {
  secret: WebhookSecret;
  toleranceSeconds: number;
  /** Accept `x-service-signature` when `x-svc-signature` is absent. */
  legacySignature: boolean;
}

export interface VerifiedRequest {
  /** Which secret matched: its index in the list (0 for a single secret). */
  secretIndex: number;
  signatureScheme: 'v1' | 'legacy';
}

/**
 * Verifies a request's signature headers against its raw body: `x-svc-signature` with
 * `x-svc-timestamp`, or — only when allowed and the first is absent — the legacy
 * `x-service-signature`. Shared by the receiver and `constructEvent`.
 */
export function verifyRequest(rawBody: RawPayload, headers: HeadersInput, options: RequestVerificationOptions, now: number): VerifiedRequest {
  const signature = readHeader(headers, SIGNATURE_HEADER);
  const legacy = options.legacySignature && signature === undefined ? readHeader(headers, LEGACY_SIGNATURE_HEADER) : undefined;
  if (legacy !== undefined) {
    const { secretIndex } = verifyLegacySignature({ payload: rawBody, signature: legacy, secret: options.secret });
    return { secretIndex, signatureScheme: 'legacy' };
  }
  const { secretIndex } = verifySignature({
    payload: rawBody,
    signature,
    timestamp: readHeader(headers, TIMESTAMP_HEADER),
    secret: options.secret,
    toleranceSeconds: options.toleranceSeconds,
    now,
  });
  return { secretIndex, signatureScheme: 'v1' };
}
