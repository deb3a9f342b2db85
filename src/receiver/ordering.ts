import { boolean, callable, oneOf, optional, strictObject, union, type Check } from '../kernel/options-check.js';
import { eventTypeInfo } from '../events/event-types.js';
import type { WebhookEvent } from '../events/schemas.js';
import { compareVersions, type ObjectVersion } from '../ports/versions.js';

/**
 * The ordering guard's options (`ordering: true` takes the defaults).
 *
 * The guard remembers, per object, the newest event already handled; an event older than that
 * is stale. Events are ordered by `created`, then by the type's stage in its object's life
 * (`invoice.created` < `invoice.sent` < `invoice.overdue` < `invoice.paid` = `invoice.cancelled`;
 * from the event catalog), then by event id.
 */
export interface OrderingOptions {
  /**
   * Which object an event is about; events with the same key are ordered. Return `null` to leave
   * an event out of the guard.
   * @default (event) => `${object type}:${event.data.object.id}`, e.g. `invoice:inv_8xK2`
   */
  key?: ((event: WebhookEvent) => string | null) | undefined;
  /**
   * What happens to a stale event: `'skip'` acknowledges it without running the handlers
   * (`stale: true` in the answer and the log), `'run'` runs them with `context.stale` set. A
   * creation event (`invoice.created`, `customer.created`, `payment.received`,
   * `subscription.created`, `uva.submitted`) always runs, with `context.stale` set: what it starts
   * is not carried by the later events.
   * @default 'skip'
   */
  onStale?: 'skip' | 'run' | undefined;
}

/** @default 'skip': a later event's `data.object` is a newer snapshot of the same object. */
export const DEFAULT_ON_STALE = 'skip';

export const orderingShape: Check<boolean | OrderingOptions> = union(
  boolean('must be true, false or { key?, onStale? }'),
  strictObject({
    key: optional(callable<(event: WebhookEvent) => string | null>('(event) => string | null')),
    onStale: optional(oneOf(['skip', 'run'], "must be 'skip' or 'run'")),
  }),
  'must be true, false or { key?, onStale? }',
);

/** The guard in effect; internal. */
export interface OrderingGuard {
  /** The event's object and place; null when the key function leaves it out. */
  versionOf(event: WebhookEvent): ObjectVersion | null;
  /** What to do with an event, given the newest handled of its object. */
  decide(event: WebhookEvent, version: ObjectVersion, newest: ObjectVersion | undefined): 'run' | 'run_stale' | 'skip';
}


export function defaultOrderingKey(event: WebhookEvent): string {
  return `${eventTypeInfo(event.type).object}:${event.data.object.id}`;
}

export function orderingGuard(options: true | OrderingOptions): OrderingGuard {
  const { key = defaultOrderingKey, onStale = DEFAULT_ON_STALE } = options === true ? {} : options;
  return {
    versionOf(event) {
      const objectKey = key(event);
      if (objectKey === null || objectKey === undefined) return null;
      return { key: String(objectKey), created: Date.parse(event.created), rank: eventTypeInfo(event.type).stage, eventId: event.id };
    },
    decide(event, version, newest) {
      if (newest === undefined || compareVersions(version, newest) >= 0) return 'run';
      return onStale === 'run' || eventTypeInfo(event.type).creation === true ? 'run_stale' : 'skip';
    },
  };
}
