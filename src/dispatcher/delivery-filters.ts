import { z } from 'zod';
import { EVENT_TYPES, expandEventPattern, type EventPattern, type EventType } from '../events/catalog.js';
import { DispatcherError } from './errors.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../ports/dispatch-statuses.js';
import type { AttemptQuery, DeliveryCountQuery, DeliveryQuery } from '../ports/dispatch-store.js';

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
  correlation_id?: string;
  /**
   * The class of the latest attempt's response status: `2xx` … `5xx`, or `none` when the latest
   * attempt got no answer (timeout, connection, TLS, refused URL). A delivery not attempted yet
   * matches no class.
   */
  response_status_class?: ResponseStatusClass;
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

/** A class of HTTP statuses, or `none` for an attempt that got no answer. */
export type ResponseStatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'none';

/** Each class as the range of statuses it holds; an attempt without an answer counts as 0. */
const STATUS_RANGES: Readonly<Record<ResponseStatusClass, readonly [number, number]>> = {
  '2xx': [200, 299],
  '3xx': [300, 399],
  '4xx': [400, 499],
  '5xx': [500, 599],
  none: [0, 0],
};

/** Every response status class. */
export const RESPONSE_STATUS_CLASSES = Object.keys(STATUS_RANGES) as readonly ResponseStatusClass[];

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
  correlation_id: text.optional(),
  response_status_class: z
    .enum(RESPONSE_STATUS_CLASSES as [ResponseStatusClass, ...ResponseStatusClass[]], { error: `must be one of ${RESPONSE_STATUS_CLASSES.join(', ')}` })
    .optional(),
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

const countFilter = z.strictObject(filterShape);

const exportFilter = z.strictObject({ ...filterShape, attempted_after: time.optional(), attempted_before: time.optional() });

/**
 * The store's query for `deliveries.list()`.
 * @throws DispatcherError `VALIDATION_ERROR` ({ field, reason }), `UNKNOWN_EVENT_TYPE`
 */
export function deliveryQuery(options: DeliveryListOptions): DeliveryQuery {
  return withEventTypes(parse(listOptions, options));
}

/**
 * The store's query for `deliveries.count()`.
 * @throws DispatcherError `VALIDATION_ERROR` ({ field, reason }), `UNKNOWN_EVENT_TYPE`
 */
export function countQuery(filter: DeliveryFilter): DeliveryCountQuery {
  return withEventTypes(parse(countFilter, filter));
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

type WithStatusRange<T> = Omit<T, 'response_status_class'> & { response_status_range?: readonly [number, number] };

/** `response_status_class` → the range of statuses the store compares with. */
function withStatusRange<T extends { response_status_class?: ResponseStatusClass | undefined }>({ response_status_class: statusClass, ...rest }: T): WithStatusRange<T> {
  return statusClass === undefined ? rest : { ...rest, response_status_range: STATUS_RANGES[statusClass] };
}

/** `event_type` (a type or a pattern) → the types it selects; left out when it selects every type. */
function withEventTypes<T extends { event_type?: string | undefined; response_status_class?: ResponseStatusClass | undefined }>({
  event_type: pattern,
  ...rest
}: T): Given<WithStatusRange<Omit<T, 'event_type'>>> & { event_types?: EventType[] } {
  const withoutUndefined = Object.fromEntries(Object.entries(withStatusRange(rest)).filter(([, given]) => given !== undefined)) as Given<
    WithStatusRange<Omit<T, 'event_type'>>
  >;
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
