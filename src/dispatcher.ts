/** acct-webhook/dispatcher: the platform's sending side. This file only re-exports. */
export { Dispatcher } from './platform/node-dispatcher.js';
export { RETRY_SCHEDULE } from './dispatcher/schedule.js';
export { DELIVERY_TIMEOUT_MS } from './dispatcher/dispatcher-defaults.js';
export { generateSigningKeyPair, type SigningKeyPair } from './signing/standard-webhooks.js';
export { StoreUnavailableError } from './kernel/store-unavailable.js';
export { DispatcherError, InvalidUrlError, NotFoundError, RateLimitError, type DispatcherErrorCode, type UrlRefusalReason } from './dispatcher/errors.js';
export type { DispatcherOptions, DispatcherSettings } from './dispatcher/options.js';
export type { CreateWebhookInput, EnableWebhookOptions, ListWebhooksQuery, Registrations, RotateSecretOptions, UpdateWebhookInput, WebhookPage } from './dispatcher/registrations.js';
export { DEFAULT_WEBHOOK_PAGE_LIMIT, MAX_WEBHOOK_PAGE_LIMIT } from './dispatcher/registrations.js';
export type { AlertPayload, WebhookAlert } from './dispatcher/alerts.js';
export type { MetricsMeter, MetricsOptions } from './metrics/meter.js';
export type { Deliveries, ManualRetryResult } from './dispatcher/deliveries.js';
export type { DeliveryExportFilter, DeliveryFilter, DeliveryListOptions, ResponseStatusClass, TimeInput } from './dispatcher/delivery-filters.js';
export type { AttemptReport } from './dispatcher/attempt-report.js';
export type { EmitOptions } from './dispatcher/emit.js';
export { DEFAULT_EVENT_PAGE_SIZE, MAX_EVENT_PAGE_SIZE, type EventFeed, type EventFeedCountQuery, type EventFeedPage, type EventFeedQuery } from './dispatcher/events.js';
export { MAX_REPLAY_EVENTS, ReplayTooLargeError, type ReplayOptions, type ReplayResult } from './dispatcher/replay.js';
export type { RateLimit } from './dispatcher/rate-limit.js';
export type { TrustedCa } from './dispatcher/sender.js';
export type { ResolveHost } from './dispatcher/url-guard.js';
export type {
  AttemptErrorKind,
  Delivery,
  DeliveryAttempt,
  DeliveryDetail,
  DeliveryStatus,
  DisabledReason,
  EnabledWebhook,
  SigningAlgorithm,
  WebhookScheme,
  WebhookScope,
  ExportedAttempt,
  WebhookRegistration,
  WebhookStatus,
  WebhookWithSecret,
} from './dispatcher/records.js';
// For people writing a backend: the store's interface and the types its methods use.
export type {
  AttemptQuery,
  AttemptRecording,
  ClaimRequest,
  DeliveryCountQuery,
  DeliveryJob,
  DeliveryQuery,
  DeliveryState,
  DispatchStore,
  ExportRow,
  HealthAlert,
  InsertEventResult,
  Lease,
  NewAttempt,
  NewDelivery,
  QueueStats,
  RecordedAttempt,
  StoredAttempt,
  StoredDelivery,
  StoredEvent,
  StoredWebhook,
  WebhookActivity,
  WebhookChanges,
  WebhookPageQuery,
  WebhookPageRows,
  WebhookHealth,
} from './ports/dispatch-store.js';
export type { FeedCountQuery, FeedEvent, FeedQuery } from './ports/event-feed.js';
export type { PruneResult } from './dispatcher/retention.js';
export { PAYLOAD_REMOVED, type BusinessErasure } from './ports/retention.js';
export type { WakeUpConnectionChange, WakeUps, WakeUpSubscription } from './ports/wake-ups.js';
