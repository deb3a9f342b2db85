/** acct-webhook/dispatcher: the platform's sending side. This file only re-exports. */
export { Dispatcher } from '../defaults/dispatcher.js';
export { RETRY_SCHEDULE } from './schedule.js';
export { DELIVERY_TIMEOUT_MS } from './defaults.js';
export { DispatcherError, InvalidUrlError, NotFoundError, RateLimitError, type DispatcherErrorCode, type UrlRefusalReason } from './errors.js';
export type { DispatcherOptions, DispatcherSettings } from './options.js';
export type { CreateWebhookInput, EnableWebhookOptions, Registrations, UpdateWebhookInput } from './registrations.js';
export type { AlertPayload, WebhookAlert } from './alerts.js';
export type { MetricsMeter, MetricsOptions } from '../metrics/meter.js';
export type { Deliveries, ManualRetryResult } from './deliveries.js';
export type { DeliveryExportFilter, DeliveryFilter, DeliveryListOptions, ResponseStatusClass, TimeInput } from './delivery-filters.js';
export type { AttemptReport } from './attempt-report.js';
export type { EmitOptions } from './emit.js';
export type { RateLimit } from './rate-limit.js';
export type { TrustedCa } from './sender.js';
export type { ResolveHost } from './url-guard.js';
export type {
  AttemptErrorKind,
  Delivery,
  DeliveryAttempt,
  DeliveryDetail,
  DeliveryStatus,
  DisabledReason,
  EnabledWebhook,
  ExportedAttempt,
  WebhookRegistration,
  WebhookStatus,
  WebhookWithSecret,
} from './records.js';
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
  WebhookHealth,
} from '../ports/dispatch-store.js';
export type { PruneResult } from './retention.js';
export { PAYLOAD_REMOVED, type BusinessErasure } from '../ports/retention.js';
export type { WakeUpConnectionChange, WakeUps, WakeUpSubscription } from '../ports/wake-ups.js';
