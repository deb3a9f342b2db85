/**
 * acct-webhook: receive, verify, dedupe and route the platform's webhooks.
 * This file only re-exports; every concept lives in its own module.
 */
export {
  AcctWebhookError,
  ConfigurationError,
  WebhookValidationError,
  WebhookVerificationError,
  VALIDATION_ERROR_CODES,
  VERIFICATION_ERROR_CODES,
  type ErrorBody,
  type ErrorDetails,
  type ValidationErrorCode,
  type ValidationIssue,
  type VerificationErrorCode,
} from './errors.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  LEGACY_SIGNATURE_HEADER,
  SECRET_PREFIX,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  signLegacyPayload,
  signPayload,
  verifyLegacySignature,
  verifySignature,
  type RawPayload,
  type SignPayloadOptions,
  type SignedPayload,
  type VerifiedSignature,
  type VerifySignatureOptions,
  type WebhookSecret,
} from './signature.js';
export * from './events/index.js';
export * from './receiver/index.js';
export * from './store/index.js';
export { DEFAULT_STORE_FILE, sqliteStore, type SqliteStoreOptions } from './sqlite/idempotency-store.js';
export { SQLITE_BUSY_TIMEOUT_MS } from './sqlite/connection.js';
