import type { Logger } from 'pino';
import { ConfigurationError, isAcctWebhookError, WebhookValidationError, WebhookVerificationError } from '../errors.js';
import { parseEvent } from '../events/parse.js';
import type { WebhookEvent } from '../events/schemas.js';
import {
  LEGACY_SIGNATURE_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyLegacySignature,
  verifySignature,
  type RawPayload,
  type WebhookSecret,
} from '../signature.js';
import type { AtomicEffect, IdempotencyStore } from '../store/types.js';
import { acknowledged, failed, type WebhookResponse } from './answers.js';
import type { HandlerContext } from './context.js';
import { ReceiverError, WebhookHandlerError } from './errors.js';
import { readHeader, type HeadersInput } from './headers.js';
import { LEASE_MARGIN_MS, REDACTED_PATHS, resolveOptions, type ResolvedOptions, type WebhookHandlerOptions } from './options.js';
import { quarantine } from './quarantine.js';

/** One delivery as any framework sees it: the raw body, the headers, and the method if known. */
export interface ReceiveRequest {
  /** The body exactly as received. A parsed object cannot be verified (`PAYLOAD_NOT_RAW`). */
  rawBody: RawPayload;
  headers: HeadersInput;
  /** When given, anything but POST is answered 405. */
  method?: string | undefined;
}

/** A receiver with its options resolved once: store opened, handlers fixed. */
export interface Receiver {
  receive(request: ReceiveRequest): Promise<WebhookResponse>;
  /**
   * Runs a quarantined payload through the handlers again (after a fix or an upgrade that knows
   * its type). Throws `WebhookValidationError` if it still does not validate; on success the
   * quarantine entry is removed.
   */
  reprocess(quarantineId: string): Promise<WebhookResponse>;
  readonly options: ResolvedOptions;
  readonly store: IdempotencyStore;
  close(): Promise<void>;
}

interface Verified {
  secretIndex: number;
  signatureScheme: 'v1' | 'legacy';
}

interface Delivery extends Verified {
  receivedAt: number;
  started: number;
}

const HANDLED: Outcome = Object.freeze({ outcome: 'handled' });
const DUPLICATE: Outcome = Object.freeze({ outcome: 'duplicate' });

/** The event a log line is about. */
interface About {
  eventId: string;
  type: string;
  correlationId: string;
}

/** What the log line of a delivery says besides status and duration. */
interface Outcome {
  outcome: string;
  eventId?: string | undefined;
  type?: string | undefined;
  correlationId?: string | undefined;
  code?: string;
  level?: 'info' | 'warn' | 'error';
  err?: unknown;
}

/**
 * The framework-free receiver: verify → parse → claim the event id → run the handlers →
 * complete or release → answer. Adapters (Express, node:http, Fetch) only read the body and
 * write the answer.
 *
 * @example
 * const receiver = createReceiver({ secret, handlers, store: sqliteStore('events.db') });
 * const { status, headers, body } = await receiver.receive({ rawBody, headers: req.headers, method: 'POST' });
 */
export function createReceiver(input: WebhookSecret | WebhookHandlerOptions): Receiver {
  const options = resolveOptions(input);
  const { store, handlers, clock, logger } = options;
  const leaseMs = options.handlerTimeoutMs + LEASE_MARGIN_MS;
  let warnedLegacy = false;

  function verify(request: ReceiveRequest, now: number): Verified {
    const signature = readHeader(request.headers, SIGNATURE_HEADER);
    const legacy = options.legacySignature && signature === undefined ? readHeader(request.headers, LEGACY_SIGNATURE_HEADER) : undefined;
    if (legacy !== undefined) {
      if (!warnedLegacy) {
        warnedLegacy = true;
        logger.warn('Accepting a legacy x-service-signature: it signs no timestamp, so a captured request can be replayed');
      }
      const { secretIndex } = verifyLegacySignature({ payload: request.rawBody, signature: legacy, secret: options.secret });
      return { secretIndex, signatureScheme: 'legacy' };
    }
    const { secretIndex } = verifySignature({
      payload: request.rawBody,
      signature,
      timestamp: readHeader(request.headers, TIMESTAMP_HEADER),
      secret: options.secret,
      toleranceSeconds: options.toleranceSeconds,
      now,
    });
    return { secretIndex, signatureScheme: 'v1' };
  }

  // The log line is built only when there is a logger to take it: the hot path allocates nothing for it.
  function finish(response: WebhookResponse, delivery: Pick<Delivery, 'started'>, outcome: Outcome, about?: About): WebhookResponse {
    if (options.logging) {
      const { level = 'info', ...fields } = outcome;
      logger[level]({ ...about, ...fields, status: response.status, durationMs: round(performance.now() - delivery.started) }, 'webhook delivery');
    }
    return response;
  }

  async function receive(request: ReceiveRequest): Promise<WebhookResponse> {
    const delivery = { started: performance.now(), receivedAt: clock() };
    try {
      if (request.method !== undefined && request.method.toUpperCase() !== 'POST') {
        const error = new ReceiverError('METHOD_NOT_ALLOWED', `Webhooks are delivered with POST, not ${request.method}`, {
          method: request.method,
        });
        return finish(failed(error, { allow: 'POST' }), delivery, { outcome: 'rejected', code: error.code, level: 'warn' });
      }
      const verified = verify(request, delivery.receivedAt);
      const event = parseEvent(request.rawBody);
      return await handle(event, { started: delivery.started, receivedAt: delivery.receivedAt, ...verified });
    } catch (error) {
      return answerError(error, request, delivery);
    }
  }

  async function answerError(error: unknown, request: ReceiveRequest, delivery: Pick<Delivery, 'started' | 'receivedAt'>): Promise<WebhookResponse> {
    if (error instanceof WebhookVerificationError) {
      const level = error.code === 'NO_SECRET' || error.code === 'PAYLOAD_NOT_RAW' ? 'error' : 'warn';
      // The full message (with hints about the secret) goes to the log only.
      return finish(failed(error), delivery, { outcome: 'rejected', code: error.code, level, err: level === 'error' ? error : undefined, ...(level === 'warn' ? { reason: error.message } : {}) });
    }
    if (error instanceof WebhookValidationError) {
      const result = await quarantine(options, request.rawBody, error, delivery.receivedAt);
      return finish(result.response, delivery, result.outcome);
    }
    const internal = isAcctWebhookError(error) ? error : new ReceiverError('INTERNAL_ERROR', 'Unexpected receiver failure', {}, { cause: error });
    return finish(failed(internal), delivery, { outcome: 'error', code: internal.code, level: 'error', err: error });
  }

  async function handle(event: WebhookEvent, delivery: Delivery): Promise<WebhookResponse> {
    const about = aboutEvent(event);
    let claim;
    try {
      claim = await store.claim(event.id, { now: clock(), leaseMs, type: event.type });
    } catch (error) {
      return finish(storeUnavailable(error), delivery, { outcome: 'error', code: 'STORE_UNAVAILABLE', level: 'error', err: error }, about);
    }
    if (claim.status === 'completed') {
      return finish(acknowledged({ id: event.id, type: event.type, duplicate: true }), delivery, DUPLICATE, about);
    }
    if (claim.status === 'in_progress') {
      const retryAfter = Math.max(1, Math.ceil((claim.leaseExpiresAt - clock()) / 1000));
      const error = new ReceiverError('EVENT_IN_PROGRESS', 'This event is being handled by another delivery right now; retry later', {
        eventId: event.id,
        retry_after: retryAfter,
      });
      return finish(failed(error, { 'retry-after': String(retryAfter) }), delivery, { outcome: 'in_progress', level: 'warn' }, about);
    }
    return runHandlers(event, claim.token, delivery, about);
  }

  async function runHandlers(event: WebhookEvent, token: string, delivery: Delivery, about: About): Promise<WebhookResponse> {
    const abort = lazyAbort();
    const effects: AtomicEffect[] = [];
    const context = handlerContext(logger, event, delivery, abort, (effect) => {
      if (!store.completeAtomically) {
        throw new ConfigurationError({ option: 'store', reason: 'does not support atomic effects' }, 'atomic() needs a store that commits effects with the completion mark, such as sqliteStore');
      }
      effects.push(effect);
    });
    const work = handlers.run(event, context);
    const result = await withinBudget(work, options.handlerTimeoutMs);

    if (result === 'timeout') {
      const error = new ReceiverError('HANDLER_TIMEOUT', `The handlers did not finish within ${options.handlerTimeoutMs} ms; retry later`, {
        eventId: event.id,
        handlerTimeoutMs: options.handlerTimeoutMs,
      });
      abort.abort(error);
      await store.release(event.id, token).catch(() => false);
      finishLate(work, event, token, effects);
      return finish(failed(error), delivery, { outcome: 'handler_timeout', level: 'error' }, about);
    }
    const failure = result === 'ok' ? await completion(event, token, effects, about) : result.error;
    if (failure) {
      await store.release(event.id, token).catch(() => false);
      await reportFailure(failure, event, context);
      return finish(failed(failure), delivery, { outcome: 'handler_failed', level: 'error', err: failure }, about);
    }
    return finish(acknowledged({ id: event.id, type: event.type, duplicate: false }), delivery, HANDLED, about);
  }

  /**
   * Records the event as handled. Without atomic effects a failing store is only logged: the
   * handlers' effects happened, and acknowledging keeps a retry from repeating them. With atomic
   * effects a failure means nothing was applied, so it is a failure of the delivery.
   */
  async function completion(event: WebhookEvent, token: string, effects: AtomicEffect[], about: About): Promise<WebhookHandlerError | undefined> {
    if (effects.length > 0) {
      try {
        const completed = await store.completeAtomically!(event.id, token, clock(), effects);
        if (!completed) logger.warn(about, 'The claim expired while the handlers ran; their atomic effects were not applied');
        return undefined;
      } catch (error) {
        return new WebhookHandlerError([error], { eventId: event.id, type: event.type });
      }
    }
    const completed = await store.complete(event.id, token, clock()).catch((error: unknown) => {
      logger.error({ ...about, err: error }, 'Could not record the event as handled');
      return true;
    });
    if (!completed) logger.warn(about, 'The claim expired while the handlers ran; another delivery may have run them too');
    return undefined;
  }

  /** A handler that outlives its budget may still finish: record it so the retry sees a duplicate. */
  function finishLate(work: Promise<void>, event: WebhookEvent, token: string, effects: AtomicEffect[]): void {
    const about = aboutEvent(event);
    work.then(
      async () => {
        const failure = await completion(event, token, effects, about);
        logger.warn({ ...about, completed: !failure }, 'A timed-out handler finished late');
      },
      (error: unknown) => logger.error({ ...about, err: error }, 'A timed-out handler failed late'),
    ).catch(() => undefined);
  }

  async function reportFailure(error: WebhookHandlerError, event: WebhookEvent, context: HandlerContext): Promise<void> {
    const thrown = await handlers.reportError(error, event, context);
    for (const failure of thrown) logger.error({ eventId: event.id, err: failure }, 'An onError handler threw');
  }

  async function reprocess(quarantineId: string): Promise<WebhookResponse> {
    const entry = await store.quarantine.get(quarantineId);
    if (!entry) throw new ReceiverError('NOT_FOUND', `No quarantined event ${quarantineId}`, { quarantineId });
    const event = parseEvent(entry.raw_body);
    const response = await handle(event, { started: performance.now(), receivedAt: clock(), secretIndex: -1, signatureScheme: 'v1' });
    if (response.status === 200) await store.quarantine.delete(quarantineId);
    return response;
  }

  return { receive, reprocess, options, store, close: () => store.close() };
}

const receivers = new WeakMap<object, Receiver>();

/**
 * Receives one delivery: the framework-free core every adapter calls. Pass a {@link Receiver}, or
 * options (resolved once per options object).
 */
export async function receive(request: ReceiveRequest, options: WebhookHandlerOptions | Receiver): Promise<WebhookResponse> {
  return receiverFor(options).receive(request);
}

function receiverFor(options: WebhookHandlerOptions | Receiver): Receiver {
  if ('receive' in options && typeof options.receive === 'function') return options;
  let receiver = receivers.get(options);
  if (!receiver) {
    receiver = createReceiver(options as WebhookHandlerOptions);
    receivers.set(options, receiver);
  }
  return receiver;
}

type BudgetResult = 'ok' | 'timeout' | { error: WebhookHandlerError };

function withinBudget(work: Promise<void>, budgetMs: number): Promise<BudgetResult> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), budgetMs);
    void work.then(
      () => {
        clearTimeout(timer);
        resolve('ok');
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ error: error instanceof WebhookHandlerError ? error : new WebhookHandlerError([error]) });
      },
    );
  });
}

/** An AbortController made only if a handler asks for the signal: most never do. */
function lazyAbort(): { readonly signal: AbortSignal; abort(reason: unknown): void } {
  let controller: AbortController | undefined;
  let abortedWith: { reason: unknown } | undefined;
  return {
    get signal() {
      controller ??= new AbortController();
      if (abortedWith && !controller.signal.aborted) controller.abort(abortedWith.reason);
      return controller.signal;
    },
    abort(reason: unknown) {
      abortedWith = { reason };
      controller?.abort(reason);
    },
  };
}

function handlerContext(
  logger: Logger,
  event: WebhookEvent,
  delivery: Delivery,
  abort: { readonly signal: AbortSignal },
  atomic: (effect: AtomicEffect) => void,
): HandlerContext {
  let log: Logger | undefined;
  return {
    get log() {
      log ??= logger.child({ eventId: event.id, type: event.type, correlationId: event.correlation_id }, { redact: REDACTED_PATHS });
      return log;
    },
    get signal() {
      return abort.signal;
    },
    secretIndex: delivery.secretIndex,
    signatureScheme: delivery.signatureScheme,
    receivedAt: new Date(delivery.receivedAt),
    atomic,
  };
}

function aboutEvent(event: WebhookEvent): About {
  return { eventId: event.id, type: event.type, correlationId: event.correlation_id };
}

function storeUnavailable(error: unknown): WebhookResponse {
  return failed(new ReceiverError('STORE_UNAVAILABLE', 'The idempotency store is unavailable; retry later', {}, { cause: error }));
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
