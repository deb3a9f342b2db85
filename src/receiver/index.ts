export { webhookHandler, type ExpressLikeRequest, type ExpressWebhookHandler } from './express.js';
export { nodeHandler, type NodeWebhookHandler } from './node.js';
export { fetchHandler, type FetchWebhookHandler } from './fetch.js';
export { createReceiver, receive, type Receiver, type ReceiveRequest } from './receive.js';
export { Webhooks, type EventForPattern, type WebhookErrorHandler, type WebhookEventHandler } from './webhooks.js';
export type { HandlerContext } from './context.js';
export type { AcknowledgedBody, WebhookResponse } from './answers.js';
export { ReceiverError, WebhookHandlerError, RECEIVER_ERROR_CODES, type ReceiverErrorCode } from './errors.js';
export type { HeadersInput } from './headers.js';
export {
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PATH,
  LEASE_MARGIN_MS,
  type ReceiverOptions,
  type WebhookHandlerOptions,
} from './options.js';
