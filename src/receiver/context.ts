import type { WebhookEvent } from '../events/schemas.js';
import type { Logger } from '../logging/logger.js';
import { redactingLogger } from '../logging/redacting-logger.js';
import type { RawPayload } from '../signing/signature-scheme.js';
import type { Atomic, StoreAtomicEffect } from '../ports/atomic-effect.js';
import { ConfigurationError } from '../kernel/errors.js';
import { asBuffer } from '../kernel/bytes.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import type { ObjectVersion } from '../ports/versions.js';
import type { Inbound } from './inbound.js';
import { aboutEvent } from './outcome.js';

/** What a handler gets besides the event. */
export interface HandlerContext {
  /** The receiver's logger, bound to `eventId`, `type` and `correlationId`. */
  readonly log: Logger;
  /**
   * Fires when the handler budget (`handlerTimeoutMs`, 25 s by default) runs out; the receiver
   * then answers 503 and the sender retries. Pass it on to fetch, database drivers and timers
   * so the work stops instead of finishing behind the retry.
   */
  readonly signal: AbortSignal;
  /** Which secret verified the request: its index in the `secret` list (0 for a single secret). */
  readonly secretIndex: number;
  /**
   * The signature that matched: `'v1'` for `x-svc-signature` or a Standard Webhooks HMAC,
   * `'v1a'` for a Standard Webhooks ed25519 signature, `'legacy'` for `x-service-signature` (opt-in).
   */
  readonly signatureScheme: 'v1' | 'v1a' | 'legacy';
  /** Which headers verified the request: the platform's (`'svc'`) or Standard Webhooks'. */
  readonly scheme: 'svc' | 'standard-webhooks';
  /** When this delivery attempt arrived (from the receiver's clock). */
  readonly receivedAt: Date;
  /**
   * The exact bytes the signature covered, e.g. to archive the original or to forward it.
   * Made when first read. A plain Uint8Array (Buffer's base class) on runtimes without Buffer
   * (Cloudflare Workers without nodejs_compat).
   */
  readonly rawBody: Buffer;
  /**
   * Registers a write to the store's own database that commits in the same transaction as "this
   * event is handled", after every handler succeeded: both happen, or neither. A process killed
   * between a side effect and its completion record can then never cause the effect to be
   * repeated by the redelivery. Needs a store that offers it: `sqliteStore` (the effect gets the
   * database and is synchronous) or `postgresStore` (the effect gets the transaction's client,
   * may await, and must finish within what is left of the handler budget).
   *
   * @example
   * hooks.on('invoice.paid', (event, { atomic }) => {
   *   atomic((db) => db.prepare('UPDATE invoices SET paid = 1 WHERE id = ?').run(event.data.object.id));
   * });
   * // On PostgreSQL: name the client's type.
   * hooks.on('invoice.paid', (event, { atomic }) => {
   *   atomic(async (client: PostgresAtomicClient) => {
   *     await client.query('UPDATE invoices SET paid = true WHERE id = $1', [event.data.object.id]);
   *   });
   * });
   */
  readonly atomic: Atomic;
  /**
   * With the ordering guard: true when a newer event of the same object was handled before this
   * one (it arrived late). Handlers see it for creation events, which always run, and for every
   * stale event with `ordering: { onStale: 'run' }`: insert what is missing, but do not overwrite
   * newer state. Always false without the guard.
   */
  readonly stale: boolean;
  /** Which run of this event this is, from 1: inbox mode retries a failed run. 1 in direct mode. */
  readonly attempt: number;
}

/** An AbortController made only if a handler asks for the signal: most never do. */
export interface LazyAbort {
  readonly signal: AbortSignal;
  abort(reason: unknown): void;
}

/** A handler context, and what the receiver keeps of it: the abort switch and the atomic effects. */
export interface HandlerRun {
  context: HandlerContext;
  abort: LazyAbort;
  effects: StoreAtomicEffect[];
  /** With the ordering guard: recorded as the object's newest when the handlers succeed. */
  version: ObjectVersion | undefined;
}

/** What the ordering guard and inbox mode add to a run. */
export interface RunFacts {
  stale?: boolean;
  attempt?: number;
  version?: ObjectVersion | undefined;
}

/** What a handler context uses: the logger its `log` is a child of, and the store `atomic` needs. */
export interface ContextSettings {
  logger: Logger;
  store: Pick<IdempotencyStore, 'completeAtomically'>;
}

/** Builds the context of one event's handlers; the logger child and the signal are made only when read. */
export function handlerContext(options: ContextSettings, event: WebhookEvent, inbound: Inbound, facts: RunFacts = NO_FACTS): HandlerRun {
  const abort = new LazyAbortController();
  const effects: StoreAtomicEffect[] = [];
  return { context: new LazyHandlerContext(options, event, inbound, facts, abort, effects), abort, effects, version: facts.version };
}

const NO_FACTS: RunFacts = {};

/**
 * One allocation per delivery: the context's lazy parts (the logger child, the signal, the Buffer
 * view of the body, the bound `atomic`) are getters on the prototype, made when a handler first
 * reads them, and most handlers read none. What the receiver keeps in it is in private fields
 * (`#`): a handler that logs or serialises its context shows only the documented properties,
 * never the receiver's options.
 */
class LazyHandlerContext implements HandlerContext {
  readonly secretIndex: number;
  readonly signatureScheme: 'v1' | 'v1a' | 'legacy';
  readonly scheme: 'svc' | 'standard-webhooks';
  readonly receivedAt: Date;
  readonly stale: boolean;
  readonly attempt: number;
  readonly #options: ContextSettings;
  readonly #event: WebhookEvent;
  readonly #inbound: Inbound;
  readonly #abort: LazyAbort;
  readonly #effects: StoreAtomicEffect[];
  #log: Logger | undefined;
  #rawBody: Buffer | undefined;
  #atomic: Atomic | undefined;

  constructor(options: ContextSettings, event: WebhookEvent, inbound: Inbound, facts: RunFacts, abort: LazyAbort, effects: StoreAtomicEffect[]) {
    this.secretIndex = inbound.verified?.secretIndex ?? -1;
    this.signatureScheme = inbound.verified?.signatureScheme ?? 'v1';
    this.scheme = inbound.verified?.scheme ?? 'svc';
    this.receivedAt = new Date(inbound.receivedAt);
    this.stale = facts.stale ?? false;
    this.attempt = facts.attempt ?? 1;
    this.#options = options;
    this.#event = event;
    this.#inbound = inbound;
    this.#abort = abort;
    this.#effects = effects;
  }

  get log(): Logger {
    // A handler's careless log line (`log.info({ secret })`) is blanked even by a logger the user
    // passed in, on top of that logger's own redaction (redacting-logger.ts says why not `redact`).
    this.#log ??= redactingLogger(this.#options.logger.child(aboutEvent(this.#event)));
    return this.#log;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get rawBody(): Buffer {
    this.#rawBody ??= toBuffer(this.#inbound.rawBody);
    return this.#rawBody;
  }

  /** Bound when first read: handlers take it out of the context (`(event, { atomic }) => …`). */
  get atomic(): Atomic {
    this.#atomic ??= ((effect: StoreAtomicEffect) => {
      if (!this.#options.store.completeAtomically) {
        throw new ConfigurationError(
          { option: 'store', reason: 'does not support atomic effects' },
          'atomic() needs a store that commits effects with the completion mark: sqliteStore or postgresStore',
        );
      }
      this.#effects.push(effect);
    }) as Atomic;
    return this.#atomic;
  }
}

/** The AbortController behind `signal`, made on first read; an abort before that is replayed on it. */
class LazyAbortController implements LazyAbort {
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.abortedWith && !this.controller.signal.aborted) this.controller.abort(this.abortedWith.reason);
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    this.abortedWith = { reason };
    this.controller?.abort(reason);
  }
}

/** A Buffer view of the raw body, made once and only when asked for. */
export function lazyBuffer(body: RawPayload | undefined): () => Buffer {
  let buffer: Buffer | undefined;
  return () => (buffer ??= toBuffer(body));
}

/**
 * The raw body as a Buffer, without copying bytes that are already a Buffer or a Uint8Array (a
 * Uint8Array on runtimes without Buffer: Cloudflare Workers without nodejs_compat).
 */
export function toBuffer(body: RawPayload | undefined): Buffer {
  return asBuffer(body);
}
