/**
 * acct-webhook/client: a typed client of the platform's `/v1` API (webhook management, the
 * events feed, the current user), on the Fetch API alone. This file only re-exports.
 */
export { createClient, ITERATE_PER_PAGE, type Client, type ClientEvents, type ClientWebhooks } from './client.js';
export {
  DEFAULT_CLIENT_TIMEOUT_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_AFTER_MS,
  DEFAULT_RETRY_BASE_DELAY_MS,
  DEFAULT_RETRY_MAX_DELAY_MS,
  type ClientOptions,
  type FetchFunction,
} from './options.js';
export type { RequestOptions } from './transport.js';
export type { RateLimit } from './rate-limit.js';
export {
  API_ERROR_CODES,
  ApiConnectionError,
  ApiError,
  ApiForbiddenError,
  ApiNotFoundError,
  ApiRateLimitError,
  ApiUnauthorizedError,
  ApiValidationError,
  type ApiConnectionErrorCode,
  type ApiErrorCode,
  type ApiRequestInfo,
} from './errors.js';
export type {
  ApiMe,
  ApiWebhook,
  ApiWebhookWithSecret,
  CreateApiWebhookInput,
  EventListParams,
  EventPage,
  EventPagination,
  TimeInput,
  UpdateApiWebhookInput,
} from './records.js';
export { AcctWebhookError, ConfigurationError, type ConfigurationErrorDetails, type ErrorDetails } from '../kernel/errors.js';
export type { EventPattern, EventType } from '../events/event-types.js';
export type { WebhookEvent } from '../events/schemas.js';
export type { Logger, LogFn } from '../logging/logger.js';
