import { contained } from '../kernel/contained.js';
import { isAcctWebhookError, WebhookValidationError, WebhookVerificationError } from '../kernel/errors.js';
import { parseEvent } from '../events/parse.js';
import type { WebhookEvent } from '../events/schemas.js';
import type { RawPayload } from '../signing/signature-scheme.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import { acknowledged, acknowledgedEvent, failed, type WebhookResponse } from './answers.js';
import { handlerContext, lazyBuffer } from './context.js';
import { ReceiverError } from './errors.js';
import type { HeadersInput } from '../http/headers.js';
import { runHandlers } from './handlers-run.js';
import { LEASE_MARGIN_MS, type ResolvedReceiverOptions } from './options.js';
import { aboutEvent, logOutcome, type OutcomeFields, type ReceiveOutcome } from './outcome.js';
import { quarantine } from './quarantine.js';
import type { Inbound } from './inbound.js';
import { inboxApi, type Inbox } from './inbox.js';
import { InboxWorker } from './inbox-worker.js';
import { queueing } from './queueing.js';
import type { ObjectVersion } from '../ports/versions.js';
import type { OrderingGuard } from './ordering.js';
import type { ReceiverRuntime } from './receiver-runtime.js';
import { verifyRequest, type VerifiedRequest } from './verify-request.js';

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

/** Builds a receiver from resolved options (the adapters resolve their own, then call this). */
export function buildReceiver(options: ResolvedReceiverOptions): Receiver {
  const { store, clock, logger } = options;
  const reporting = options.logging || options.onOutcome !== undefined;
  let warnedLegacy = false;

  // Nothing is built for the report when nobody takes it: the hot path allocates nothing for it.
  function finish(response: WebhookResponse, inbound: Inbound, fields: OutcomeFields): WebhookResponse {
    if (reporting) report(outcomeOf(response, inbound, fields));
    return response;
  }

  // Reporting never changes an answer: a logger or a hook that throws is contained here.
  function report(outcome: ReceiveOutcome): void {
    if (options.logging) contained(() => logOutcome(logger, outcome));
    if (options.onOutcome === undefined) return;
    const hook = options.onOutcome;
    contained(
      () => hook(outcome),
      (error) => logger.error({ err: error }, 'The onOutcome hook threw; the answer is unchanged'),
    );
  }

  const runtime: ReceiverRuntime = { options, leaseMs: options.handlerTimeoutMs + LEASE_MARGIN_MS, reporting, finish };
  let receiving = 0;
  const worker = startWorker(options, () => receiving > 0);
  const enqueue = worker && queueing(options, worker, finish);

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
      const verified = verify(rawBody, request.headers, inbound.receivedAt);
      // node:crypto verifies synchronously: nothing is awaited on Node's path.
      inbound.verified = verified instanceof Promise ? await verified : verified;
      warnLegacy(inbound.verified);
      return await handle(parseEvent(rawBody), inbound, request.headers);
    } catch (error) {
      return answerError(error, inbound);
    }
  }

  function verify(rawBody: RawPayload, headers: HeadersInput, now: number): VerifiedRequest | Promise<VerifiedRequest> {
    return verifyRequest(rawBody, headers, options, now);
  }

  function warnLegacy(verified: VerifiedRequest): void {
    if (verified.signatureScheme === 'legacy' && !warnedLegacy) {
      warnedLegacy = true;
      logger.warn('Accepting a legacy x-service-signature: it signs no timestamp, so a captured request can be replayed');
    }
  }

  async function answerError(error: unknown, inbound: Inbound): Promise<WebhookResponse> {
    if (error instanceof WebhookValidationError && inbound.verified !== undefined) {
      const result = await quarantine(options, inbound.rawBody ?? '', error, inbound.receivedAt);
      return finish(result.response, inbound, result.fields);
    }
    const known = isAcctWebhookError(error) ? error : new ReceiverError('INTERNAL_ERROR', 'Unexpected receiver failure', {}, { cause: error });
    const response = failed(known);
    const serverSide = response.status >= 500;
    return finish(response, inbound, {
      outcome: known.code === 'INTERNAL_ERROR' ? 'error' : 'rejected',
      code: known.code,
      ...(error instanceof WebhookVerificationError || !serverSide ? { reason: known.message } : {}),
      ...(serverSide ? { error } : {}),
    });
  }

  async function handle(event: WebhookEvent, inbound: Inbound, headers: HeadersInput | undefined): Promise<WebhookResponse> {
    if (enqueue) return await enqueue(event, inbound, headers);
    let claim;
    try {
      claim = await store.claim(event.id, { now: clock(), leaseMs: runtime.leaseMs, type: event.type });
    } catch (error) {
      const unavailable = new ReceiverError('STORE_UNAVAILABLE', 'The idempotency store is unavailable; retry later', {}, { cause: error });
      return finish(failed(unavailable), inbound, { ...aboutEvent(event), outcome: 'error', code: unavailable.code, error });
    }
    if (claim.status === 'completed') {
      const response = acknowledgedEvent(event, true);
      return reporting ? finish(response, inbound, { ...aboutEvent(event), outcome: 'duplicate', duplicate: true }) : response;
    }
    if (claim.status === 'in_progress') {
      const retryAfter = Math.max(1, Math.ceil((claim.leaseExpiresAt - clock()) / 1000));
      const error = new ReceiverError('EVENT_IN_PROGRESS', 'This event is being handled by another delivery right now; retry later', {
        event_id: event.id,
        retry_after: retryAfter,
      });
      return finish(failed(error, { 'retry-after': String(retryAfter) }), inbound, { ...aboutEvent(event), outcome: 'in_progress', code: error.code });
    }
    // Without the guard nothing is awaited here: the direct hot path stays as it was.
    const guarded = options.ordering ? await guard(event, options.ordering) : RUN;
    if (guarded.verdict === 'skip') return skipStale(event, claim.token, inbound);
    const context = handlerContext(options, event, inbound, { stale: guarded.verdict === 'run_stale', version: guarded.version });
    // Awaited, not returned: an async function resolving with a promise costs two more turns of the microtask queue.
    return await runHandlers(runtime, event, claim.token, inbound, context);
  }

  async function guard(event: WebhookEvent, ordering: OrderingGuard): Promise<GuardVerdict> {
    const version = ordering.versionOf(event);
    if (!version || !store.versions) return RUN;
    return { verdict: ordering.decide(event, version, await store.versions.newest(version.key)), version };
  }

  // A stale event is acknowledged and recorded as handled, so its redeliveries are duplicates.
  async function skipStale(event: WebhookEvent, token: string, inbound: Inbound): Promise<WebhookResponse> {
    await store.complete(event.id, token, clock()).catch((error: unknown) => logger.error({ eventId: event.id, err: error }, 'Could not record the event as handled'));
    return finish(acknowledged({ id: event.id, type: event.type, duplicate: false, stale: true }), inbound, { ...aboutEvent(event), outcome: 'stale', stale: true });
  }

  async function reprocess(quarantineId: string): Promise<WebhookResponse> {
    const entry = await store.quarantine.get(quarantineId);
    if (!entry) throw new ReceiverError('NOT_FOUND', `No quarantined event ${quarantineId}`, { quarantine_id: quarantineId });
    const event = parseEvent(entry.raw_body);
    const inbound: Inbound = {
      started: performance.now(),
      receivedAt: clock(),
      rawBody: entry.raw_body,
      verified: { secretIndex: -1, signatureScheme: 'v1' },
    };
    const response = await handle(event, inbound, undefined);
    if (response.status === 200) await store.quarantine.delete(quarantineId);
    return response;
  }

  return {
    receive: worker ? countedReceive : receiveOne,
    reprocess,
    store,
    inbox: inboxApi(store, clock, worker),
    ready: () => store.ready(),
    async close() {
      await worker?.close();
      if (options.ownsStore) await store.close();
    },
  };
}

type GuardVerdict = { verdict: 'run' | 'run_stale' | 'skip'; version?: ObjectVersion };
const RUN: GuardVerdict = { verdict: 'run' };

function startWorker(options: ResolvedReceiverOptions, receiving: () => boolean): InboxWorker | undefined {
  if (!options.inbox || !options.store.inbox) return undefined;
  const worker = new InboxWorker({ ...options, inbox: options.inbox }, options.store.inbox, receiving);
  // Events a crashed or stopped process left behind are run without waiting for a delivery.
  worker.wake();
  return worker;
}

function outcomeOf(response: WebhookResponse, inbound: Inbound, fields: OutcomeFields): ReceiveOutcome {
  const rawBody = lazyBuffer(inbound.rawBody);
  return {
    ...fields,
    status: response.status,
    verified: fields.verified ?? inbound.verified !== undefined,
    duplicate: fields.duplicate ?? false,
    durationMs: Math.round((performance.now() - inbound.started) * 100) / 100,
    receivedAt: new Date(inbound.receivedAt),
    get rawBody() {
      return rawBody();
    },
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<RawPayload> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
