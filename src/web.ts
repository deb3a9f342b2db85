/**
 * acct-webhook/web: the receiver for runtimes without Node's modules — Cloudflare Workers (with
 * or without nodejs_compat; plain or in a Hono app), the edge runtimes of Next.js and Vercel, Deno Deploy. The same
 * receiver as acct-webhook's, verifying with WebCrypto, with `store` required; nothing it loads
 * imports a Node.js module at run time (test/platform/workerd.integration.test.ts). This file only re-exports.
 */

export { fetchHandler } from './adapters/fetch/web.js';
export { createReceiver } from './platform/web.js';
export { honoWebhooks } from './adapters/hono/web.js';
export type { FetchWebhookHandler } from './adapters/fetch/handler.js';
export type { HonoRequestContext, HonoWebhookHandler } from './adapters/hono/handler.js';
export type { Receiver, ReceiveRequest } from './receiver/receive.js';
export type { SecretCacheOptions, WebhookSecretLookup, WebhookSecretRequest } from './receiver/secret-lookup.js';
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

export { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, TIMESTAMP_HEADER, type HeaderValue, type RawPayload, type WebhookSecret } from './signing/signature-scheme.js';

export { EVENT_TYPES, isEventType, type EventPattern, type EventType } from './events/event-types.js';
export type { EventGroup } from './events/catalog.js';
export type { EventMap, EventObject, PreviousAttributes, WebhookEvent } from './events/schemas.js';
export { parseEvent } from './events/parse.js';

// The store that needs nothing but memory; any IdempotencyStore of your own fits.
export { memoryStore } from './stores/memory/idempotency-store.js';
export type { ClaimOptions, ClaimResult, IdempotencyStore, QuarantinedEvent, QuarantineInput, QuarantineReason, QuarantineStore, StoreOptions } from './ports/idempotency-store.js';
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

export type { LogFn, Logger } from './logging/logger.js';
export type { MetricsMeter, MetricsOptions } from './metrics/meter.js';

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
