import type { z } from 'zod';
import { EVENT_CATALOG, EVENT_GROUPS, type EventGroup, type EventType } from './catalog.js';

type GroupObject<G extends EventGroup> = z.output<(typeof EVENT_GROUPS)[G]['schema']>;

/**
 * What a person wants to see first about an object of each group, after its `id`. Keyed by
 * group, never by event: each event adds the fields its transition guarantees (see
 * {@link handlerFields}). Typed against the group's schema, so a renamed field fails to compile.
 */
export const KEY_FIELDS: { readonly [G in EventGroup]: readonly (keyof GroupObject<G> & string)[] } = {
  invoices: ['number', 'customer_id', 'amount', 'currency', 'status', 'due_date'],
  customers: ['name', 'email', 'uid_number', 'status'],
  payments: ['invoice_id', 'amount', 'currency', 'method', 'status'],
  subscriptions: ['customer_id', 'plan', 'interval', 'amount', 'currency', 'status', 'current_period_end'],
  uva: ['period', 'amount', 'currency', 'status', 'due_date'],
};

/** What a generated handler logs about its event. */
export interface HandlerFields {
  /** Fields of `data.object`, in the order they are logged. */
  fields: string[];
  /**
   * Whether to log which fields changed (`data.previous_attributes`): for updates whose object
   * has no transition of its own, such as `customer.updated`, that is the news.
   */
  logsChanges: boolean;
}

/**
 * The fields a handler for `type` logs: the object's `id`, its group's key fields, then the
 * fields this event's schema narrows compared to the group's object (`paid_at` on
 * `invoice.paid`, `failure` on `payment.failed`, `rejection` on `uva.rejected` …) — all taken
 * from the event catalog.
 */
export function handlerFields(type: EventType): HandlerFields {
  const entry = EVENT_CATALOG[type];
  const groupShape: Readonly<Record<string, unknown>> = EVENT_GROUPS[entry.group].schema.shape;
  const shape: Readonly<Record<string, unknown>> = entry.object.shape;
  const transitionFields = Object.keys(shape).filter((field) => shape[field] !== groupShape[field]);
  const keyFields: readonly string[] = KEY_FIELDS[entry.group];
  const fields = [...new Set(['id', ...keyFields, ...transitionFields])].filter((field) => Object.hasOwn(shape, field));
  return { fields, logsChanges: transitionFields.length === 0 && 'previousAttributes' in entry };
}
