import { z } from 'zod';
import { EVENT_TYPES, expandEventPattern, type EventPattern, type EventType } from '../events/catalog.js';
import { DispatcherError } from './errors.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from './statuses.js';
import type { AttemptQuery, DeliveryQuery } from './store.js';

/** A point in time: a Date, an ISO 8601 string or milliseconds since the epoch. */
export type TimeInput = Date | string | number;

/**
 * Which deliveries: every criterion given must hold. Each is named after the record field it
 * matches; a time range is `<field>_after` (inclusive) and `<field>_before` (exclusive).
 */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  /** An event type, a group (`invoice.*`) or `*`. */
  event_type?: EventPattern;
  webhook_id?: string;
  event_id?: string;
  /** Deliveries created at or after this time. */
  created_after?: TimeInput;
  /** Deliveries created before this time. */
  created_before?: TimeInput;
}

/** `deliveries.list()`: a filter and a page. */
export interface DeliveryListOptions extends DeliveryFilter {
  /** @default 100, at most 1000 */
  limit?: number;
  /** @default 0 */
  offset?: number;
}

/** `deliveries.export()`: the attempts of the deliveries a filter selects, and of a time range. */
export interface DeliveryExportFilter extends DeliveryFilter {
  /** Attempts made at or after this time. */
  attempted_after?: TimeInput;
  /** Attempts made before this time. */
  attempted_before?: TimeInput;
}

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

const TIME_RULE = 'must be a Date, an ISO 8601 string or ms since the epoch';

/**
 * A time as whole milliseconds. Stored times are whole, so rounding a bound up keeps both ends
 * exact: `>= 1.5` selects what `>= 2` does, and `< 6.5` what `< 7` does.
 */
const time = z
  .union([z.date(), z.string(), z.number()], { error: TIME_RULE })
  .transform((input, context) => {
    const ms = input instanceof Date ? input.getTime() : typeof input === 'number' ? input : Date.parse(input);
    if (Number.isFinite(ms) && Math.abs(ms) <= Number.MAX_SAFE_INTEGER) return Math.ceil(ms);
    context.addIssue({ code: 'custom', message: TIME_RULE });
    return z.NEVER;
  });

const text = z.string({ error: 'must be a string' });

const filterShape = {
  status: z.enum(DELIVERY_STATUSES as [DeliveryStatus, ...DeliveryStatus[]], { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional(),
  event_type: text.optional(),
  webhook_id: text.optional(),
  event_id: text.optional(),
  created_after: time.optional(),
  created_before: time.optional(),
};

const wholeIn = (min: number, max: number) =>
  z
    .number({ error: `must be an integer from ${min} to ${max}` })
    .int({ error: `must be an integer from ${min} to ${max}` })
    .min(min, { error: `must be an integer from ${min} to ${max}` })
    .max(max, { error: `must be an integer from ${min} to ${max}` });

const listOptions = z.strictObject({
  ...filterShape,
  limit: wholeIn(1, MAX_LIST_LIMIT).default(DEFAULT_LIST_LIMIT),
  offset: wholeIn(0, Number.MAX_SAFE_INTEGER).default(0),
});

const exportFilter = z.strictObject({ ...filterShape, attempted_after: time.optional(), attempted_before: time.optional() });

/**
 * The store's query for `deliveries.list()`.
 * @throws DispatcherError `VALIDATION_ERROR` ({ field, reason }), `UNKNOWN_EVENT_TYPE`
 */
export function deliveryQuery(options: DeliveryListOptions): DeliveryQuery {
  return withEventTypes(parse(listOptions, options));
}

/**
 * The store's query for `deliveries.export()`.
 * @throws DispatcherError `VALIDATION_ERROR` ({ field, reason }), `UNKNOWN_EVENT_TYPE`
 */
export function attemptQuery(filter: DeliveryExportFilter): AttemptQuery {
  return withEventTypes(parse(exportFilter, filter));
}

/** The criteria given, without the keys of those left out. */
type Given<T> = { [K in keyof T]: Exclude<T[K], undefined> };

/** `event_type` (a type or a pattern) → the types it selects; left out when it selects every type. */
function withEventTypes<T extends { event_type?: string | undefined }>({ event_type: pattern, ...rest }: T): Given<Omit<T, 'event_type'>> & { event_types?: EventType[] } {
  const withoutUndefined = Object.fromEntries(Object.entries(rest).filter(([, given]) => given !== undefined)) as Given<Omit<T, 'event_type'>>;
  if (pattern === undefined) return withoutUndefined;
  const types = expandEventPattern(pattern);
  if (types.length === 0) {
    throw new DispatcherError('UNKNOWN_EVENT_TYPE', `Unknown event type "${pattern}"`, {
      field: 'event_type',
      value: pattern,
      reason: 'not an event type, a group such as invoice.* or *',
    });
  }
  return types.length === EVENT_TYPES.length ? withoutUndefined : { ...withoutUndefined, event_types: types };
}

function parse<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.code === 'unrecognized_keys' ? (issue.keys[0] ?? '') : issue.path.map(String).join('.');
  const reason = issue.code === 'unrecognized_keys' ? 'is not a filter' : issue.code === 'invalid_type' && issue.path.length === 0 ? 'must be an object' : issue.message;
  throw new DispatcherError('VALIDATION_ERROR', `Filter ${field}: ${reason}`, { field, reason });
}
