import { isEventPattern, type EventPattern } from '../events/event-types.js';
import { callable, checkOptions, custom, numberIn, optional, strictObject, string, union, type Check } from '../kernel/options-check.js';
import { MAX_TIMER_MS } from '../kernel/timers.js';
import type { CatchUpSummary } from './catch-up-summary.js';

/**
 * The events feed catch-up reads: `createClient(…)` from `acct-webhook/client` is one (its
 * `events.list`), and so is anything with the same `events.list` (a test double, another
 * client of the platform's `GET /v1/events`).
 */
export interface CatchUpFeed {
  readonly events: {
    list(params: CatchUpFeedQuery): Promise<{ data: readonly unknown[]; pagination: { next_cursor: string; has_more: boolean } }>;
  };
}

/** What catch-up asks the feed for: the platform's `GET /v1/events` parameters. */
export interface CatchUpFeedQuery {
  types?: readonly EventPattern[];
  /** ISO 8601. */
  created_after?: string;
  /** ISO 8601. */
  created_before?: string;
  per_page?: number;
  cursor?: string;
}

/**
 * A point in time: a Date, milliseconds since the epoch, an ISO 8601 string, or a duration back
 * from the receiver's clock (`'72h'`, `'90m'`, `'7d'`, combinable: `'1d12h'`).
 */
export type CatchUpTime = Date | number | string;

/** The feed's largest page, and what catch-up asks for unless told. @default 100 */
export const DEFAULT_CATCH_UP_PAGE_SIZE = 100;
/** The checkpoint a catch-up keeps unless given another name. @default 'default' */
export const DEFAULT_CHECKPOINT_NAME = 'default';
/** The shortest `every` of a periodic catch-up: the feed is a reconciliation, not a push. @default 1 minute */
export const MIN_CATCH_UP_EVERY_MS = 60_000;

/** The options of `receiver.catchUp()` and `receiver.reconcile()`: which events of the feed. */
export interface CatchUpRange {
  /** The platform's API: `createClient({ apiKey, baseUrl })` from `acct-webhook/client`. */
  client: CatchUpFeed;
  /**
   * Events created at or after this time. Without it, `catchUp` resumes from its checkpoint
   * (and refuses with `NO_CHECKPOINT` when there is none) and `reconcile` reads the whole feed.
   */
  since?: CatchUpTime | undefined;
  /** Events created before this time. @default no end: every event up to now */
  until?: CatchUpTime | undefined;
  /** Only these event types, groups (`invoice.*`) or `*`. @default every type */
  types?: EventPattern | readonly EventPattern[] | undefined;
  /** Events per feed request, 1 to 100. @default DEFAULT_CATCH_UP_PAGE_SIZE (100) */
  pageSize?: number | undefined;
  /** Stops between two events; the checkpoint stays where the last whole page ended. */
  signal?: AbortSignal | undefined;
}

/** The options of `receiver.catchUp()` run once. */
export interface CatchUpOptions extends CatchUpRange {
  /**
   * The name of the checkpoint kept in the receiver's store (one per account the receiver reads
   * from), or `false` to read and write none.
   * @default DEFAULT_CHECKPOINT_NAME ('default')
   */
  checkpoint?: string | false | undefined;
}

/** The timers a periodic catch-up waits with; the global ones unless given (tests give their own). */
export interface CatchUpTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The options of a periodic catch-up: `receiver.catchUp({ …, every: '15m' })`. */
export interface PeriodicCatchUpOptions extends CatchUpOptions {
  /**
   * How long to wait after one run ends before the next starts: a duration (`'15m'`, `'1h'`) or
   * milliseconds, at least a minute. The first run starts at once (with `since` when given, else
   * from the checkpoint); every later one resumes from the checkpoint.
   */
  every: string | number;
  /** @default globalThis's setTimeout and clearTimeout (the timer does not keep the process alive) */
  timers?: CatchUpTimers | undefined;
  /** Called after each run with its summary, or with what made it fail (it is also logged). */
  onRun?: ((result: { summary: CatchUpSummary } | { error: unknown }) => void) | undefined;
}

/** A running periodic catch-up. */
export interface CatchUpJob {
  /** Stops the schedule; resolves when a run in progress has ended. */
  stop(): Promise<void>;
  /** Runs completed so far (failed ones included). */
  readonly runs: number;
  /** The latest run's summary, once one succeeded. */
  readonly last: CatchUpSummary | undefined;
}

/** The options as the catch-up uses them. */
export interface ResolvedCatchUp {
  client: CatchUpFeed;
  since: number | undefined;
  until: number | undefined;
  types: readonly EventPattern[] | undefined;
  pageSize: number;
  signal: AbortSignal | undefined;
  checkpoint: string | false;
}

const DURATION_UNITS: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };
const DURATION = /^(\d+[dhms])+$/;

/** A duration such as `15m`, `72h` or `1d12h` in milliseconds; undefined when the text is not one. */
export function durationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DURATION.test(trimmed)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([dhms])/g)) ms += Number(amount) * DURATION_UNITS[unit!]!;
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** A time of the options in ms since the epoch; undefined when it is none. */
function timeOf(value: CatchUpTime, now: number): number | undefined {
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.getTime() : undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  const back = durationMs(value);
  if (back !== undefined) return now - back;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

const TIME_RULE = "must be a Date, milliseconds, an ISO 8601 time or a duration back from now such as '72h'";
const time: Check<CatchUpTime> = custom<CatchUpTime>((value) => (value instanceof Date || typeof value === 'number' || typeof value === 'string') && timeOf(value, 0) !== undefined, TIME_RULE);
const feed: Check<CatchUpFeed> = custom<CatchUpFeed>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { events?: { list?: unknown } }).events?.list === 'function',
  "must be the platform's API client: createClient({ apiKey, baseUrl }) from acct-webhook/client",
);
const types: Check<EventPattern | readonly EventPattern[]> = custom<EventPattern | readonly EventPattern[]>(
  (value) => (typeof value === 'string' ? isEventPattern(value) : Array.isArray(value) && value.length > 0 && value.every(isEventPattern)),
  'must be an event type, a group such as invoice.* or *, or a list of them',
);
const signal: Check<AbortSignal> = custom<AbortSignal>((value) => typeof AbortSignal !== 'undefined' && value instanceof AbortSignal, 'must be an AbortSignal');

const rangeShape = {
  client: feed,
  since: optional(time),
  until: optional(time),
  types: optional(types),
  pageSize: optional(numberIn(1, DEFAULT_CATCH_UP_PAGE_SIZE, { integer: true })),
  signal: optional(signal),
};
const checkpointShape = optional(
  union(
    custom<false>((value) => value === false, 'must be a name or false'),
    string('must be a name or false', { trim: true, minLength: [1, 'must be a name (not empty) or false'] }),
    'must be a name or false',
  ),
);
const everyRule = `must be a duration such as '15m' or milliseconds, at least ${MIN_CATCH_UP_EVERY_MS / 60_000} minute`;
const every: Check<string | number> = custom<string | number>((value) => {
  const ms = typeof value === 'number' ? value : typeof value === 'string' ? durationMs(value) : undefined;
  return ms !== undefined && Number.isFinite(ms) && ms >= MIN_CATCH_UP_EVERY_MS && ms <= MAX_TIMER_MS;
}, everyRule);
const timers: Check<CatchUpTimers> = custom<CatchUpTimers>(
  (value) => typeof value === 'object' && value !== null && typeof (value as CatchUpTimers).setTimeout === 'function' && typeof (value as CatchUpTimers).clearTimeout === 'function',
  'must be { setTimeout, clearTimeout }',
);

const catchUpShape = strictObject({ ...rangeShape, checkpoint: checkpointShape });
const periodicShape = strictObject({
  ...rangeShape,
  checkpoint: checkpointShape,
  every,
  timers: optional(timers),
  onRun: optional(callable<(result: unknown) => void>('(result) => void')),
});
const reconcileShape = strictObject(rangeShape);

function resolveRange(valid: { client: CatchUpFeed; since?: CatchUpTime | undefined; until?: CatchUpTime | undefined; types?: EventPattern | readonly EventPattern[] | undefined; pageSize?: number | undefined; signal?: AbortSignal | undefined }, now: number) {
  return {
    client: valid.client,
    since: valid.since === undefined ? undefined : timeOf(valid.since, now),
    until: valid.until === undefined ? undefined : timeOf(valid.until, now),
    types: valid.types === undefined ? undefined : typeof valid.types === 'string' ? [valid.types] : [...valid.types],
    pageSize: valid.pageSize ?? DEFAULT_CATCH_UP_PAGE_SIZE,
    signal: valid.signal,
  };
}

/** Checks `catchUp`'s options (unknown ones refused) and resolves its times against `now`. */
export function resolveCatchUp(options: CatchUpOptions, now: number): ResolvedCatchUp {
  const valid = checkOptions(catchUpShape, options, 'catchUp');
  return { ...resolveRange(valid, now), checkpoint: valid.checkpoint ?? DEFAULT_CHECKPOINT_NAME };
}

/** Checks a periodic catch-up's options; `every` in milliseconds. */
export function resolvePeriodic(options: PeriodicCatchUpOptions, now: number): ResolvedCatchUp & { everyMs: number; timers: CatchUpTimers; onRun: PeriodicCatchUpOptions['onRun'] } {
  const valid = checkOptions(periodicShape, options, 'catchUp');
  const everyMs = typeof valid.every === 'number' ? valid.every : durationMs(valid.every)!;
  return {
    ...resolveRange(valid, now),
    checkpoint: valid.checkpoint ?? DEFAULT_CHECKPOINT_NAME,
    everyMs,
    timers: valid.timers ?? GLOBAL_TIMERS,
    onRun: valid.onRun,
  };
}

/** Checks `reconcile`'s options. */
export function resolveReconcile(options: CatchUpRange, now: number): Omit<ResolvedCatchUp, 'checkpoint'> {
  return resolveRange(checkOptions(reconcileShape, options, 'reconcile'), now);
}

/** The global timers; the periodic job's timer does not keep the process alive. */
const GLOBAL_TIMERS: CatchUpTimers = {
  setTimeout(callback, ms) {
    const handle = globalThis.setTimeout(callback, ms) as unknown as { unref?: () => void };
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => globalThis.clearTimeout(handle as Parameters<typeof globalThis.clearTimeout>[0]),
};
