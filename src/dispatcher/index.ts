/** acct-webhook/dispatcher: the platform's sending side. This file only re-exports. */
export { Dispatcher } from './dispatcher.js';
export { RETRY_SCHEDULE } from './schedule.js';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_DATABASE_FILE,
  DELIVERY_TIMEOUT_MS,
  DISPATCH_LEASE_MARGIN_MS,
  MANUAL_RETRY_LIMIT,
  RESPONSE_BODY_LIMIT_BYTES,
  USER_AGENT,
} from './defaults.js';
export type { DispatcherOptions, DispatcherSettings } from './options.js';
export type { CreateWebhookInput, Registrations, UpdateWebhookInput } from './registrations.js';
export type { Deliveries, DeliveryFilter, DeliveryListOptions, ManualRetryResult, TimeInput } from './deliveries.js';
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
  ExportedAttempt,
  WebhookRegistration,
  WebhookStatus,
  WebhookWithSecret,
} from './records.js';
export {
  DISPATCHER_ERROR_CODES,
  DispatcherError,
  InvalidUrlError,
  NotFoundError,
  RateLimitError,
  type DispatcherErrorCode,
  type UrlRefusalReason,
} from './errors.js';
export { ConfigurationError, WebhookValidationError } from '../errors.js';
export { SqliteDispatchStorage } from './sqlite-storage.js';
export { SCHEMA_VERSION } from './sqlite-schema.js';
export { classifyAddress, type AddressCategory } from './address-ranges.js';
export type {
  AttemptQuery,
  ClaimRequest,
  DeliveryJob,
  DeliveryQuery,
  DeliveryState,
  DeliveryTransition,
  DispatchStorage,
  ExportRow,
  InsertEventResult,
  Lease,
  NewAttempt,
  NewDelivery,
  RecordedAttempt,
  StoredAttempt,
  StoredDelivery,
  StoredEvent,
  StoredWebhook,
  WebhookChanges,
} from './storage.js';
