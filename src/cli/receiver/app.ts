import { AsyncLocalStorage } from 'node:async_hooks';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { WebhookEvent } from '../../events/schemas.js';
import { webhookHandler } from '../../receiver/express.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../receiver/options.js';
import { Webhooks } from '../../receiver/webhooks.js';
import type { IdempotencyStore } from '../../store/types.js';
import { deliveryLogger, type ReceivedDelivery, type ReceiverNotice } from './delivery-log.js';
import { keyFields } from './event-fields.js';
import type { DeliveryView } from './render.js';

export interface CliReceiverOptions {
  secret: string;
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

export interface CliReceiver {
  app: Express;
  /** The path it answers on. */
  path: string;
  close(): Promise<void>;
}

/** What the handler learned about an event, until the receiver's log line for it arrives. */
interface Handled {
  fields: Record<string, string>;
  note?: string;
}

/**
 * An Express app with this project's `webhookHandler` — the same middleware a user mounts —
 * whose log lines are turned into {@link DeliveryView}s. `express.raw()` runs first, which the
 * handler accepts (it verifies the Buffer it leaves), so that `onEvent` can have the exact bytes:
 * they travel to the handler in an AsyncLocalStorage, with no change to the receiver's API.
 */
export function createCliReceiver(options: CliReceiverOptions): CliReceiver {
  const rawBodies = new AsyncLocalStorage<Buffer>();
  const handled = new Map<string, Handled>();
  const deliver = (delivery: ReceivedDelivery): void => {
    const about = delivery.eventId === undefined ? undefined : handled.get(delivery.eventId);
    if (delivery.eventId !== undefined) handled.delete(delivery.eventId);
    options.onDelivery({ ...delivery, ...about });
  };
  const handlers = new Webhooks().onAny(async (event) => {
    const entry: Handled = { fields: keyFields(event) };
    handled.set(event.id, entry);
    try {
      const note = await options.onEvent?.(event, rawBodies.getStore() ?? Buffer.alloc(0));
      if (note !== undefined) entry.note = note;
    } catch (error) {
      entry.note = error instanceof Error ? error.message : String(error);
      throw error;
    }
  });
  const middleware = webhookHandler({
    secret: options.secret,
    store: options.store,
    handlers,
    logger: deliveryLogger({ delivery: deliver, ...(options.onNotice ? { notice: options.onNotice } : {}) }),
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.handlerTimeoutMs === undefined ? {} : { handlerTimeoutMs: options.handlerTimeoutMs }),
  });
  const path = middleware.receiver.options.path;
  const app = express();
  app.disable('x-powered-by');
  app.use(path, express.raw({ type: () => true, limit: DEFAULT_MAX_BODY_BYTES }), keepRawBody(rawBodies));
  app.use(middleware);
  app.use(refusedBody(deliver));
  return { app, path, close: () => middleware.receiver.close() };
}

function keepRawBody(rawBodies: AsyncLocalStorage<Buffer>): RequestHandler {
  return (req, _res, next) => {
    const body: unknown = req.body;
    if (Buffer.isBuffer(body)) rawBodies.run(body, next);
    else next();
  };
}

/** A body express.raw() refused (over the limit, broken off): answered in the platform's envelope. */
function refusedBody(deliver: (delivery: ReceivedDelivery) => void): ErrorRequestHandler {
  return (error: { type?: string; status?: number; message?: string }, _req, res, _next) => {
    const tooLarge = error.type === 'entity.too.large';
    const status = tooLarge ? 413 : (error.status ?? 400);
    const code = tooLarge ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST';
    const message = tooLarge ? `The body is larger than ${DEFAULT_MAX_BODY_BYTES} bytes` : (error.message ?? 'The request could not be read');
    deliver({ time: Date.now(), outcome: 'rejected', status, code, reason: message });
    res.status(status).json({ error: { code, message, details: {} } });
  };
}
