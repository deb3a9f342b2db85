/**
 * acct-webhook: receive, verify, dedupe and route the platform's webhooks. This file only
 * re-exports; every concept lives in its own module. The list is the 1.0 surface (docs/api.md):
 * what is not here is internal.
 */

// Receiving: the framework-free core, its three adapters, the handler router.
export { createReceiver } from './platform/node.js';
export type { Receiver, ReceiveRequest } from './receiver/receive.js';
export type { SecretCacheOptions, WebhookSecretLookup, WebhookSecretRequest } from './receiver/secret-lookup.js';
export { webhookHandler, type ExpressLikeRequest, type ExpressWebhookHandler } from './adapters/express/index.js';
export { nodeHandler, type NodeWebhookHandler } from './adapters/node/index.js';
export { fetchHandler, type FetchWebhookHandler } from './adapters/fetch/index.js';
export { Webhooks, type EventForPattern, type WebhookErrorHandler, type WebhookEventHandler } from './receiver/webhooks.js';
export type { HandlerContext } from './receiver/context.js';
export type { ReceiverScheme } from './receiver/verify-request.js';
export type { AcknowledgedBody, WebhookResponse } from './receiver/answers.js';
export type { OutcomeKind, ReceiveOutcome } from './receiver/outcome.js';
export type { HeadersInput } from './http/headers.js';
export {
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_RECEIVER_SCHEME,
  type ReceiverOptions,
  type WebhookHandlerOptions,
} from './receiver/options.js';
export type { InboxOptions } from './receiver/inbox-options.js';
export type { OrderingOptions } from './receiver/ordering.js';
export type { Inbox } from './receiver/inbox.js';
export type { CatchUpFeed, CatchUpFeedQuery, CatchUpJob, CatchUpOptions, CatchUpRange, CatchUpTime, CatchUpTimers, PeriodicCatchUpOptions } from './receiver/catch-up-options.js';
export type { CatchUpSummary, ReconcileReport, UnhandledEvent } from './receiver/catch-up-summary.js';
export type { CatchUpCheckpoint, CatchUpStore, ReceivedState } from './ports/catch-up.js';

// Verifying and signing, without the receiver.
export { constructEvent, type ConstructEventOptions } from './receiver/construct-event.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  signPayload,
  verifySignature,
  type HeaderValue,
  type RawPayload,
  type SignPayloadOptions,
  type SignedPayload,
  type VerifiedSignature,
  type VerifySignatureOptions,
  type WebhookSecret,
} from './signing/signature.js';
export {
  signStandardWebhook,
  verifyStandardWebhook,
  type SignStandardWebhookOptions,
  type SignedStandardWebhook,
  type VerifiedStandardWebhook,
  type VerifyStandardWebhookOptions,
} from './signing/standard-webhooks.js';

// The events: the catalog's types and the parser.
export { EVENT_TYPES, isEventType, type EventPattern, type EventType } from './events/event-types.js';
export type { EventGroup } from './events/catalog.js';
export type { EventMap, EventObject, PreviousAttributes, WebhookEvent } from './events/schemas.js';
export { parseEvent } from './events/parse.js';

// The embedded stores (PostgreSQL: acct-webhook/postgres).
export { memoryStore } from './stores/memory/idempotency-store.js';
export { sqliteStore, type SqliteStoreOptions } from './stores/sqlite/idempotency-store.js';
export type { AtomicEffect, SqliteDatabase, SqliteStatement } from './ports/sqlite-database.js';
export type { Atomic, PostgresAtomicClient, PostgresAtomicEffect } from './ports/atomic-effect.js';
export type {
  ClaimOptions,
  ClaimResult,
  IdempotencyStore,
  QuarantinedEvent,
  QuarantineInput,
  QuarantineReason,
  QuarantineStore,
  StoreOptions,
  AtomicCompleteOptions,
} from './ports/idempotency-store.js';
export type {
  ClaimedInboxEvent,
  EnqueueResult,
  InboxCompletion,
  InboxEvent,
  InboxFailure,
  InboxFilter,
  InboxInput,
  InboxPurge,
  InboxStats,
  InboxStatus,
  InboxStore,
  StoredVerification,
} from './ports/inbox.js';
export type { CompleteOptions, ObjectVersion, ObjectVersions } from './ports/versions.js';

// Logging.
export type { LogFn, Logger } from './logging/logger.js';
export type { MetricsMeter, MetricsOptions } from './metrics/meter.js';

// Errors: one base class, a stable code each.
export {
  AcctWebhookError,
  ConfigurationError,
  WebhookValidationError,
  WebhookVerificationError,
  type ConfigurationErrorDetails,
  type ErrorBody,
  type ErrorDetails,
  type ValidationErrorCode,
  type ValidationIssue,
  type VerificationErrorCode,
} from './kernel/errors.js';
export { ReceiverError, WebhookHandlerError, type ReceiverErrorCode } from './receiver/errors.js';
