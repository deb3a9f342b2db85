import { expandEventPattern, type EventPattern, type EventType } from '../events/event-types.js';
import type { EventMap, WebhookEvent } from '../events/schemas.js';
import { ConfigurationError } from '../kernel/errors.js';
import type { HandlerContext } from './context.js';
import { WebhookHandlerError } from './errors.js';

/** The events a pattern selects: `'invoice.paid'`, `'invoice.*'` or `'*'`. */
export type EventForPattern<P extends EventPattern> = P extends '*'
  ? WebhookEvent
  : P extends `${infer Prefix}.*`
    ? EventMap[Extract<EventType, `${Prefix}.${string}`>]
    : P extends EventType
      ? EventMap[P]
      : never;

/**
 * A handler of one event type (or several). It may return anything (`unknown`, which includes a
 * promise of anything):
 * `(e) => e.data.object.paid_at` and `async (e) => fetch(…)` are both handlers. What it returns
 * is reported in the delivery's outcome (`results`); a throw or a rejection fails the delivery.
 */
export type WebhookEventHandler<E = WebhookEvent> = (event: E, context: HandlerContext) => unknown;
/** Called with every failure of an event's handlers; may return anything. */
export type WebhookErrorHandler = (
  error: WebhookHandlerError,
  event: WebhookEvent,
  context: HandlerContext,
) => unknown;

type AnyHandler = WebhookEventHandler<never>;

/**
 * Routes verified events to typed handlers. The event type of each handler comes from the
 * event catalog, so `on('invoice.paid', e => e.data.object.paid_at)` is typed and
 * `on('invoice.payed', …)` does not compile.
 *
 * All handlers matching an event run concurrently; if any fails, the receiver answers 500, the
 * claim is released, and the sender's retry runs every handler of that event again — so make
 * each handler safe to repeat, or keep them to one per event.
 *
 * @example
 * const hooks = new Webhooks()
 *   .on('invoice.paid', async (event, { log }) => log.info({ amount: event.data.object.amount }, 'paid'))
 *   .on(['payment.failed', 'payment.refunded'], (event) => notifyAccounting(event))
 *   .onError((error, event) => alert(event.id, error.errors));
 */
export class Webhooks {
  private readonly byType = new Map<EventType, AnyHandler[]>();
  private readonly errorHandlers: WebhookErrorHandler[] = [];

  on<P extends EventPattern>(patterns: P | readonly P[], handler: WebhookEventHandler<EventForPattern<P>>): this {
    const list: readonly string[] = Array.isArray(patterns) ? patterns : [patterns as P];
    if (typeof handler !== 'function') throw new ConfigurationError({ option: 'handler', reason: 'must be a function' }, 'on() needs a handler function');
    if (list.length === 0) throw new ConfigurationError({ option: 'patterns', reason: 'must name at least one event type' }, 'on() needs at least one event type');
    for (const pattern of list) {
      const types = expandEventPattern(pattern);
      if (types.length === 0) {
        throw new ConfigurationError({ option: 'patterns', reason: `"${pattern}" is not an event type or pattern` }, `Unknown event type or pattern "${pattern}"`);
      }
      for (const type of types) this.add(type, handler);
    }
    return this;
  }

  /** Runs for every event of every type. */
  onAny(handler: WebhookEventHandler): this {
    return this.on('*', handler);
  }

  /** Called with all failures of an event's handlers together. Errors thrown here are only logged. */
  onError(handler: WebhookErrorHandler): this {
    if (typeof handler !== 'function') throw new ConfigurationError({ option: 'handler', reason: 'must be a function' }, 'onError() needs a handler function');
    this.errorHandlers.push(handler);
    return this;
  }

  /**
   * Runs the event's handlers: what they returned, in registration order — as an array at once
   * when every handler returned a plain value (no promise, nothing to wait for: the receiver then
   * needs no timer and no turn of the microtask queue), else as a promise of it. A failure is
   * always a promise rejected with one {@link WebhookHandlerError} holding every failure.
   * @internal the receiver calls it
   */
  run(event: WebhookEvent, context: HandlerContext): unknown[] | Promise<unknown[]> {
    const handlers = this.byType.get(event.type);
    if (!handlers) return [];
    if (handlers.length === 1) {
      let result: unknown;
      try {
        result = handlers[0]!(event as never, context);
      } catch (error) {
        return Promise.reject(new WebhookHandlerError([error], { event_id: event.id, type: event.type }));
      }
      if (!isThenable(result)) return [result];
      return Promise.resolve(result).then(
        (value) => [value],
        (error: unknown) => {
          throw new WebhookHandlerError([error], { event_id: event.id, type: event.type });
        },
      );
    }
    return this.runAll(handlers, event, context);
  }

  private async runAll(handlers: readonly AnyHandler[], event: WebhookEvent, context: HandlerContext): Promise<unknown[]> {
    const settled = await Promise.allSettled(handlers.map((handler) => called(() => handler(event as never, context))));
    const errors = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    if (errors.length > 0) throw new WebhookHandlerError(errors, { event_id: event.id, type: event.type });
    return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value);
  }

  /**
   * Tells every `onError` handler; returns what they threw in turn.
   * @internal the receiver calls it
   */
  async reportError(error: WebhookHandlerError, event: WebhookEvent, context: HandlerContext): Promise<unknown[]> {
    const results = await Promise.allSettled(this.errorHandlers.map((handler) => called(() => handler(error, event, context))));
    return results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  }

  private add(type: EventType, handler: AnyHandler): void {
    const handlers = this.byType.get(type);
    if (handlers) handlers.push(handler);
    else this.byType.set(type, [handler]);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** Calls a handler and settles with what it returned: a value, a promise's value, or a throw as a rejection. */
function called(handler: () => unknown): Promise<unknown> {
  return new Promise((resolve) => resolve(handler()));
}
