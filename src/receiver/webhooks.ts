import { expandEventPattern, type EventPattern, type EventType } from '../events/catalog.js';
import type { EventMap, WebhookEvent } from '../events/schemas.js';
import { ConfigurationError } from '../errors.js';
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

export type WebhookEventHandler<E = WebhookEvent> = (event: E, context: HandlerContext) => void | Promise<void>;
export type WebhookErrorHandler = (
  error: WebhookHandlerError,
  event: WebhookEvent,
  context: HandlerContext,
) => void | Promise<void>;

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

  /** How many handlers an event of this type runs. */
  countHandlers(type: EventType): number {
    return this.byType.get(type)?.length ?? 0;
  }

  /** Runs the event's handlers; throws one {@link WebhookHandlerError} holding every failure. */
  async run(event: WebhookEvent, context: HandlerContext): Promise<void> {
    const handlers = this.byType.get(event.type);
    if (!handlers) return;
    if (handlers.length === 1) {
      try {
        await handlers[0]!(event as never, context);
      } catch (error) {
        throw new WebhookHandlerError([error], { eventId: event.id, type: event.type });
      }
      return;
    }
    const results = await Promise.allSettled(handlers.map(async (handler) => handler(event as never, context)));
    const errors = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    if (errors.length > 0) throw new WebhookHandlerError(errors, { eventId: event.id, type: event.type });
  }

  /** Tells every `onError` handler; returns what they threw in turn. */
  async reportError(error: WebhookHandlerError, event: WebhookEvent, context: HandlerContext): Promise<unknown[]> {
    const results = await Promise.allSettled(this.errorHandlers.map(async (handler) => handler(error, event, context)));
    return results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  }

  private add(type: EventType, handler: AnyHandler): void {
    const handlers = this.byType.get(type);
    if (handlers) handlers.push(handler);
    else this.byType.set(type, [handler]);
  }
}
