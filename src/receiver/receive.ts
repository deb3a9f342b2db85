import { parseEvent } from '../events/parse.js';
import type { WebhookEvent } from '../events/schemas.js';
import type { RawPayload } from '../signing/signature-scheme.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import type { HeadersInput } from '../http/headers.js';
import { failed, type WebhookResponse } from './answers.js';
import { answerError, type AnswerErrorSettings } from './answer-error.js';
import { claimEvent, isClaimed, type ClaimSettings } from './claim.js';
import { handlerContext, type ContextSettings } from './context.js';
import { ReceiverError } from './errors.js';
import { WebhookVerificationError } from '../kernel/errors.js';
import { runHandlers, type RunSettings } from './handlers-run.js';
import type { Inbound } from './inbound.js';
import { inboxApi, type Inbox } from './inbox.js';
import { InboxWorker } from './inbox-worker.js';
import { LEASE_MARGIN_MS, type ResolvedReceiverOptions } from './options.js';
import { queueing } from './queueing.js';
import { reporter } from './report.js';
import { RequestVerifier, type VerifiedRequest } from './verify-request.js';
import { catchUpApi } from './catch-up.js';
import type { CatchUpJob, CatchUpOptions, CatchUpRange, PeriodicCatchUpOptions } from './catch-up-options.js';
import type { CatchUpSummary, ReconcileReport } from './catch-up-summary.js';

/** One delivery as any framework sees it: the raw body, the headers, and the method if known. */
export interface ReceiveRequest {
  /**
   * The body exactly as received, or a promise of it while it is still being read: a read that
   * fails (too large, too slow) is then answered and reported like any other refusal. A parsed
   * object cannot be verified (`PAYLOAD_NOT_RAW`).
   */
  rawBody: RawPayload | PromiseLike<RawPayload>;
  /** The request's headers as the framework gives them (node:http, Express, Fetch `Headers`, a plain object). */
  headers: HeadersInput;
  /** When given, anything but POST is answered 405. */
  method?: string | undefined;
  /**
   * The request's URL: a path with its query (node:http's `req.url`, Express's `req.originalUrl`)
   * or an absolute URL (Fetch's `request.url`). A `secret` function is told its path; nothing
   * else reads it.
   */
  url?: string | undefined;
}

/**
 * The framework-free receiver, made once by {@link createReceiver} (or by an adapter, as its
 * `.receiver`). It holds no secret you can read back.
 */
export interface Receiver {
  /** Verifies, parses, dedupes and handles one delivery; resolves with the answer to send. Never rejects. */
  receive(request: ReceiveRequest): Promise<WebhookResponse>;
  /**
   * Runs a quarantined payload through the handlers again (after a fix or an upgrade that knows
   * its type). Throws `WebhookValidationError` if it still does not validate and `ReceiverError`
   * `NOT_FOUND` for an unknown id; on success the quarantine entry is removed.
   */
  reprocess(quarantineId: string): Promise<WebhookResponse>;
  /**
   * Reads the platform's events feed (`client.events.list`, oldest first) and runs each event
   * through the same pipeline a webhook takes — schema validation, the dedupe claim, the ordering
   * guard, the inbox, the handlers, the quarantine — without signature verification: the feed
   * came over the authenticated API. An event handled before is a duplicate and does not run
   * again. Starts at `since`, or without it where the stored checkpoint (`checkpoint`, in the
   * store) says the last catch-up stopped; moves that checkpoint past each page of settled
   * events. With `every` it runs periodically and returns the job (`stop()`).
   * @throws ReceiverError `NO_CHECKPOINT` (no `since`, nothing stored), `CATCH_UP_UNSUPPORTED`
   *   (a store without `catchUp`); ConfigurationError for a bad option; the client's errors
   * @example
   * const summary = await receiver.catchUp({ client: createClient({ apiKey, baseUrl }), since: '72h' });
   */
  catchUp(options: PeriodicCatchUpOptions): CatchUpJob;
  catchUp(options: CatchUpOptions): Promise<CatchUpSummary>;
  /**
   * The reconciliation report: the events the feed has in a time range that this receiver has
   * not handled (never received, pending, failed or quarantined), by type. Runs no handler and
   * claims nothing.
   * @throws ReceiverError `CATCH_UP_UNSUPPORTED`; ConfigurationError for a bad option; the client's errors
   */
  reconcile(options: CatchUpRange): Promise<ReconcileReport>;
  /** The idempotency store: handled event ids and the quarantine (`store.quarantine.list()`). */
  readonly store: IdempotencyStore;
  /** Inbox mode's events: list, get, retry, purge, stats, and `drain()` for tests. */
  readonly inbox: Inbox;
  /** Resolves when the store is usable; call it at start-up to fail fast. */
  ready(): Promise<void>;
  /**
   * Stops the inbox worker (running handlers get `inbox.closeTimeoutMs` to finish, then go back
   * to the inbox), then closes the store if the receiver opened it (no `store` option given); a
   * store you passed is yours to close.
   */
  close(): Promise<void>;
}

/**
 * Builds a receiver from resolved options (the adapters resolve their own, then call this): each
 * step is given what it uses, once, and a delivery goes through them in order — verify, parse,
 * claim, run (or queue, in inbox mode), answer, report.
 */
export function buildReceiver(options: ResolvedReceiverOptions): Receiver {
  const { store, clock, logger } = options;
  const report = reporter(options);
  const { finish } = report;
  const verifier = new RequestVerifier(options, options.keys, logger);
  const { secretLookup } = options;
  const claiming: ClaimSettings = { store, clock, leaseMs: options.handlerTimeoutMs + LEASE_MARGIN_MS, ordering: options.ordering, logger, report };
  const context: ContextSettings = { logger, store };
  const running: RunSettings = { handlers: options.handlers, handlerTimeoutMs: options.handlerTimeoutMs, store, clock, logger, report };
  const answering: AnswerErrorSettings = { quarantine: { store, onUnknownEvent: options.onUnknownEvent }, report };

  let receiving = 0;
  const worker = options.inboxWorker === false ? undefined : startWorker(options, () => receiving > 0);
  // Without a worker of its own (the CLI's catch-up) events are stored for the one of the process that serves the store.
  const storing = options.inbox && store.inbox ? (worker ?? WORKER_ELSEWHERE) : undefined;
  const enqueue = storing && queueing(store.inbox!, options.ordering, storing, finish);

  // Only inbox mode's worker asks whether deliveries are arriving; direct mode counts nothing.
  async function countedReceive(request: ReceiveRequest): Promise<WebhookResponse> {
    receiving++;
    try {
      return await receiveOne(request);
    } finally {
      receiving--;
    }
  }

  async function receiveOne(request: ReceiveRequest): Promise<WebhookResponse> {
    const inbound: Inbound = { started: performance.now(), receivedAt: clock(), rawBody: undefined, verified: undefined };
    try {
      if (request.method !== undefined && request.method.toUpperCase() !== 'POST') {
        const error = new ReceiverError('METHOD_NOT_ALLOWED', `Webhooks are delivered with POST, not ${request.method}`, { method: request.method });
        return finish(failed(error, { allow: 'POST' }), inbound, { outcome: 'rejected', code: error.code, reason: error.message });
      }
      const rawBody = isPromiseLike(request.rawBody) ? await request.rawBody : request.rawBody;
      inbound.rawBody = rawBody;
      let verified;
      if (secretLookup === undefined) verified = verifier.verify(rawBody, request.headers, inbound.receivedAt);
      else {
        // A request whose signature headers are missing or stale is refused before any lookup.
        verifier.precheck(rawBody, request.headers, inbound.receivedAt);
        const keys = secretLookup.keysFor({ url: request.url, headers: request.headers, rawBody });
        verified = verifier.verify(rawBody, request.headers, inbound.receivedAt, keys instanceof Promise ? await keys : keys);
      }
      // node:crypto verifies synchronously: nothing is awaited on Node's path.
      inbound.verified = verified instanceof Promise ? await verified : verified;
      verifier.warnLegacy(inbound.verified);
      const event = parseEvent(rawBody);
      if (inbound.verified.webhookId !== undefined && inbound.verified.webhookId !== event.id) throw webhookIdMismatch(inbound.verified.webhookId, event.id);
      return await handle(event, inbound, request.headers);
    } catch (error) {
      return answerError(answering, error, inbound);
    }
  }

  async function handle(event: WebhookEvent, inbound: Inbound, headers: HeadersInput | undefined): Promise<WebhookResponse> {
    if (enqueue) return await enqueue(event, inbound, headers);
    const claimed = await claimEvent(claiming, event, inbound);
    if (!isClaimed(claimed)) return claimed;
    const run = handlerContext(context, event, inbound, claimed.version === undefined ? undefined : { stale: claimed.stale, version: claimed.version });
    // Awaited, not returned: an async function resolving with a promise costs two more turns of the microtask queue.
    return await runHandlers(running, event, claimed.token, inbound, run);
  }

  // An event of the feed: parsed and validated like a webhook's body, never verified (it has no signature).
  const encoder = new TextEncoder();
  async function deliverFromFeed(event: unknown): Promise<WebhookResponse> {
    const rawBody = encoder.encode(JSON.stringify(event));
    const inbound: Inbound = { started: performance.now(), receivedAt: clock(), rawBody, verified: FEED_VERIFIED, via: 'catch_up' };
    try {
      return await handle(parseEvent(rawBody), inbound, undefined);
    } catch (error) {
      return answerError(answering, error, inbound);
    }
  }
  const { catchUp, reconcile } = catchUpApi({ deliver: deliverFromFeed, store, clock, logger });

  async function reprocess(quarantineId: string): Promise<WebhookResponse> {
    const entry = await store.quarantine.get(quarantineId);
    if (!entry) throw new ReceiverError('NOT_FOUND', `No quarantined event ${quarantineId}`, { quarantine_id: quarantineId });
    const event = parseEvent(entry.raw_body);
    const inbound: Inbound = {
      started: performance.now(),
      receivedAt: clock(),
      rawBody: entry.raw_body,
      verified: { secretIndex: -1, signatureScheme: 'v1', scheme: 'svc' },
    };
    const response = await handle(event, inbound, undefined);
    if (response.status === 200) await store.quarantine.delete(quarantineId);
    return response;
  }

  return {
    receive: worker ? countedReceive : receiveOne,
    reprocess,
    catchUp,
    reconcile,
    store,
    inbox: inboxApi(store, clock, worker),
    ready: () => store.ready(),
    async close() {
      await worker?.close();
      if (options.ownsStore) await store.close();
    },
  };
}

/** Inbox mode without a worker in this process: nothing to remember or wake here. */
const WORKER_ELSEWHERE: Pick<InboxWorker, 'remember' | 'wake'> = { remember: () => undefined, wake: () => undefined };

/** How a feed event is marked for the handler context: no secret verified it (`secretIndex` -1). */
const FEED_VERIFIED: VerifiedRequest = { secretIndex: -1, signatureScheme: 'v1', scheme: 'svc' };

/**
 * Deliveries are deduped on the event's id; with Standard Webhooks that is also the
 * `webhook-id` (the dispatcher sends the event id there), so a body whose id is another is refused.
 */
function webhookIdMismatch(webhookId: string, eventId: string): WebhookVerificationError {
  return new WebhookVerificationError('WEBHOOK_ID_MISMATCH', `The webhook-id header (${webhookId}) is not the event's id (${eventId})`, {
    webhook_id: webhookId,
    event_id: eventId,
  });
}

function startWorker(options: ResolvedReceiverOptions, receiving: () => boolean): InboxWorker | undefined {
  const { inbox, store } = options;
  if (!inbox || !store.inbox) return undefined;
  const settings = { inbox, handlers: options.handlers, store, ordering: options.ordering, clock: options.clock, logger: options.logger, logging: options.logging };
  const worker = new InboxWorker(settings, store.inbox, receiving);
  // Events a crashed or stopped process left behind are run without waiting for a delivery.
  worker.wake();
  return worker;
}

function isPromiseLike(value: unknown): value is PromiseLike<RawPayload> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
