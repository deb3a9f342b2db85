import type { RequestListener } from 'node:http';
import { parseEvent } from '../../events/parse.js';
import type { WebhookEvent } from '../../events/schemas.js';
import type { Logger, LogFn } from '../../logging/logger.js';
import { nodeHandler } from '../../adapters/node/index.js';
import { DELIVERY_LOG_MESSAGE, type ReceiveOutcome } from '../../receiver/outcome.js';
import { Webhooks } from '../../receiver/webhooks.js';
import type { IdempotencyStore } from '../../ports/idempotency-store.js';
import { keyFields } from './event-fields.js';
import type { DeliveryView } from './render.js';

/** Anything else the receiver logs at warn or above (a legacy signature accepted, a late handler …). */
export interface ReceiverNotice {
  level: 'warn' | 'error';
  message: string;
}

export interface LocalReceiverOptions {
  /** Several while a secret is being rotated: a delivery signed with any of them is accepted. */
  secret: string | string[];
  store: IdempotencyStore;
  /** @default the receiver's default, /webhooks */
  path?: string;
  /** ms since the epoch; the demo compresses time. @default Date.now */
  clock?: () => number;
  /** The handlers' budget (real time); the claim's lease, on `clock`, is this plus a margin. @default the receiver's 25 s */
  handlerTimeoutMs?: number;
  /**
   * Runs for every verified, new event with its exact bytes, as the user's handler would. What
   * it returns is shown with the delivery; if it throws, the answer is 500 and the sender retries.
   */
  onEvent?: (event: WebhookEvent, rawBody: Buffer) => Promise<string | undefined> | string | undefined;
  /** Every delivery the receiver answered, in the order answered. */
  onDelivery: (delivery: DeliveryView) => void;
  onNotice?: (notice: ReceiverNotice) => void;
}

export interface LocalReceiver {
  /** A node:http listener: this project's `nodeHandler`, the same receiver a user mounts. */
  listener: RequestListener;
  /** The path it answers on. */
  path: string;
  close(): Promise<void>;
}

/**
 * The receiver behind `listen` and `demo`: this project's `nodeHandler` with the user's kind of
 * handler, whose outcome hook turns every answered delivery into a {@link DeliveryView}.
 */
export function createLocalReceiver(options: LocalReceiverOptions): LocalReceiver {
  const handlers = new Webhooks().onAny((event, { rawBody }) => options.onEvent?.(event, rawBody));
  const handler = nodeHandler({
    secret: options.secret,
    store: options.store,
    handlers,
    logger: noticeLogger(options.onNotice),
    onOutcome: (outcome) => options.onDelivery(deliveryView(outcome)),
    path: options.path,
    clock: options.clock,
    handlerTimeoutMs: options.handlerTimeoutMs,
  });
  return { listener: handler, path: options.path ?? '/webhooks', close: () => handler.receiver.close() };
}

/** The outcome as the CLI shows it: the key fields of an event whose handler ran, and what it said. */
export function deliveryView(outcome: ReceiveOutcome): DeliveryView {
  const view: DeliveryView = { time: outcome.receivedAt.getTime(), outcome: outcome.outcome, status: outcome.status, durationMs: outcome.durationMs };
  if (outcome.code !== undefined && outcome.outcome !== 'unknown_event_type') view.code = outcome.code;
  if (outcome.eventId !== undefined) view.eventId = outcome.eventId;
  if (outcome.type !== undefined) view.type = outcome.type;
  if (outcome.reason !== undefined) view.reason = outcome.reason;
  if (HANDLER_RAN.has(outcome.outcome)) view.fields = keyFields(parseEvent(outcome.rawBody));
  const note = noteOf(outcome);
  if (note !== undefined) view.note = note;
  return view;
}

const HANDLER_RAN = new Set(['handled', 'handler_failed', 'handler_timeout']);

function noteOf(outcome: ReceiveOutcome): string | undefined {
  const [said] = outcome.results ?? [];
  if (typeof said === 'string') return said;
  if (outcome.outcome !== 'handler_failed') return undefined;
  const thrown = (outcome.error as { errors?: unknown[] } | undefined)?.errors?.[0];
  return thrown instanceof Error ? thrown.message : undefined;
}

/**
 * The receiver's logger: its warnings and errors become notices; the delivery lines do not (the
 * outcome hook reports those), nor does anything below warn.
 */
function noticeLogger(onNotice: ((notice: ReceiverNotice) => void) | undefined): Logger | false {
  if (onNotice === undefined) return false;
  const notice =
    (level: ReceiverNotice['level']): LogFn =>
    (fieldsOrMessage: object | string, message?: string) => {
      const text = typeof fieldsOrMessage === 'string' ? fieldsOrMessage : (message ?? '');
      if (text !== DELIVERY_LOG_MESSAGE) onNotice({ level, message: text });
    };
  const quiet: LogFn = () => undefined;
  const logger: Logger = { debug: quiet, info: quiet, warn: notice('warn'), error: notice('error'), child: () => logger };
  return logger;
}
