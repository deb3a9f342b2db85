// The receiver's option checks were zod schemas until they were rewritten without zod (so that a
// receiver's cold start does not load it, src/kernel/options-check.ts). Here the zod schemas, as they
// were, are the reference: for every input of a table, the zod-free check and `parseOptions`
// over the zod schema throw the same ConfigurationError (`{ option, reason }`) or accept the value
// alike.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callable, instanceOf, numberIn, parseOptions } from '../../src/kernel/configuration.js';
import { ConfigurationError } from '../../src/kernel/errors.js';
import { isLogger, type Logger } from '../../src/logging/logger.js';
import { isMeter, type MetricsOptions } from '../../src/metrics/meter.js';
import { checkArgument, checkOptions, strictObject, type Check } from '../../src/kernel/options-check.js';
import { MIN_RETENTION_MS } from '../../src/ports/idempotency-store.js';
import { INBOX_STATUSES } from '../../src/ports/inbox.js';
import { RETENTION_RULE, retentionShape } from '../../src/ports/store-options.js';
import { Webhooks } from '../../src/receiver/webhooks.js';
import { handlerOptionsCheck as adapterCheck } from '../../src/receiver/options.js';
import { sqliteConnectionShape, sqliteTarget } from '../../src/stores/sqlite/open-connection.js';
import { SQLITE_DRIVERS } from '../../src/stores/sqlite/drivers.js';
import { MAX_TIMER_MS } from '../../src/kernel/timers.js';
import { memoryStore } from '../../src/stores/memory/idempotency-store.js';
import { createReceiver } from '../../src/platform/node.js';

// --- The zod schemas as they were (src/receiver/options.ts, inbox-options.ts, ordering.ts, inbox.ts, ports/store-options.ts, sqlite/connection.ts).
const zodInbox = z.union(
  [
    z.boolean(),
    z.strictObject({
      concurrency: numberIn(1, 10_000, { integer: true }).optional(),
      handlerTimeoutMs: numberIn(1, MAX_TIMER_MS, { integer: true }).optional(),
      leaseMs: numberIn(1, Number.MAX_SAFE_INTEGER).optional(),
      retryDelaysMs: z.array(numberIn(0, MAX_TIMER_MS, { integer: true }), { error: 'must be an array of waits in milliseconds' }).readonly().optional(),
      pollIntervalMs: numberIn(1, MAX_TIMER_MS).optional(),
      closeTimeoutMs: numberIn(0, MAX_TIMER_MS).optional(),
    }),
  ],
  { error: 'must be true, false or the inbox options' },
);
const zodOrdering = z.union(
  [
    z.boolean(),
    z.strictObject({
      key: callable<(event: unknown) => string | null>('(event) => string | null').optional(),
      onStale: z.enum(['skip', 'run'], { error: "must be 'skip' or 'run'" }).optional(),
    }),
  ],
  { error: 'must be true, false or { key?, onStale? }' },
);
const isStore = (value: unknown) =>
  typeof value === 'object' && value !== null && ['claim', 'complete', 'release', 'close'].every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
const nonEmptySecret = z.string({ error: 'must be the whsec_… secret (a non-empty string)' }).min(1, { error: 'must not be empty' });
const zodReceiverShape = {
  secret: z.union(
    [
      z.union([nonEmptySecret, z.array(nonEmptySecret).min(1, { error: 'must not be an empty list' }).readonly()], { error: 'must be the whsec_… secret or a non-empty list of them' }),
      callable<(request: unknown) => unknown>('({ path, headers, businessId }) => the secret, a list, or undefined'),
    ],
    { error: 'must be the whsec_… secret, a non-empty list of them, or a function ({ path, headers, businessId }) => secret' },
  ),
  handlers: instanceOf(Webhooks, 'a Webhooks instance: new Webhooks().on(…)').optional(),
  store: z.custom(isStore, { error: 'must be a store from sqliteStore(), memoryStore() or postgresStore()' }).optional(),
  database: z.string({ error: 'must be a SQLite file path' }).trim().min(1, { error: 'must be a SQLite file path' }).optional(),
  toleranceSeconds: numberIn(0, Number.MAX_SAFE_INTEGER).optional(),
  handlerTimeoutMs: numberIn(1, MAX_TIMER_MS, { integer: true }).optional(),
  logger: z.union([z.literal(false), z.custom<Logger>(isLogger)], { error: 'must be a logger (pino, or debug/info/warn/error/child) or false' }).optional(),
  onOutcome: callable<(outcome: unknown) => void>('(outcome) => void').optional(),
  legacySignature: z.boolean({ error: 'must be true or false' }).optional(),
  onUnknownEvent: z.enum(['acknowledge', 'reject'], { error: "must be 'acknowledge' or 'reject'" }).optional(),
  clock: callable<() => number>('returning milliseconds since the epoch').optional(),
  inbox: zodInbox.optional(),
  ordering: zodOrdering.optional(),
  metrics: z.strictObject({ meter: z.custom<MetricsOptions['meter']>(isMeter, { error: 'must be an OpenTelemetry Meter' }) }, { error: 'must be { meter }' }).optional(),
};
const zodBodyShape = {
  path: z.string({ error: 'must be a path starting with "/"' }).startsWith('/', { error: 'must start with "/"' }).optional(),
  maxBodyBytes: numberIn(1, Number.MAX_SAFE_INTEGER, { integer: true }).optional(),
  bodyTimeoutMs: numberIn(1, MAX_TIMER_MS).optional(),
};
const oneStore = (options: { store?: unknown; database?: unknown }) => options.store === undefined || options.database === undefined;
const ONE_STORE = { error: 'give store or database, not both', path: ['database'] };
const zodHandler = z.strictObject({ ...zodReceiverShape, ...zodBodyShape }).refine(oneStore, ONE_STORE);
const zodRetention = {
  retentionMs: z.number({ error: RETENTION_RULE }).min(MIN_RETENTION_MS, { error: RETENTION_RULE }).max(Number.MAX_SAFE_INTEGER, { error: RETENTION_RULE }).optional(),
};
const zodConnection = {
  synchronous: z.enum(['NORMAL', 'FULL'], { error: "must be 'NORMAL' or 'FULL'" }).optional(),
  busyTimeoutMs: numberIn(0, MAX_TIMER_MS, { integer: true }).optional(),
  driver: z.enum(SQLITE_DRIVERS, { error: `must be ${SQLITE_DRIVERS.map((name) => `'${name}'`).join(' or ')}` }).optional(),
};
const zodSqliteTarget = z.custom((value) => typeof value === 'string' && value.trim() !== '', { error: 'must be a file name or an open better-sqlite3 Database' });
const zodFilter = z.strictObject({
  status: z.enum(INBOX_STATUSES as [string, ...string[]], { error: `must be one of ${INBOX_STATUSES.join(', ')}` }).optional(),
  type: z.string({ error: 'must be an event type' }).optional(),
  limit: numberIn(1, 10_000, { integer: true }).optional(),
});
const zodPurge = z.strictObject({
  status: z.enum(['done', 'dead'], { error: "must be 'done' or 'dead': pending and running events cannot be purged" }),
  before: z.union([z.date(), z.number()], { error: 'must be a Date or ms since the epoch' }).optional(),
});

// --- The comparison.
type Outcome = { ok: true; value: unknown } | { ok: false; code: string; details: unknown; message: string };

function outcome(run: () => unknown): Outcome {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return { ok: false, code: error.code, details: error.details, message: error.message };
  }
}

function expectSame(zodSchema: z.ZodType, check: Check<unknown>, input: unknown): void {
  const expected = outcome(() => parseOptions(zodSchema, input, 'subject'));
  const actual = outcome(() => checkOptions(check, input, 'subject'));
  expect(actual.ok, JSON.stringify(expected)).toBe(expected.ok);
  if (expected.ok && actual.ok) expect(actual.value).toEqual(expected.value);
  else expect(actual).toEqual(expected);
}

/** What an inbox call did: resolved, or refused with a ConfigurationError (anything else fails the test). */
async function settled(call: Promise<unknown>): Promise<{ ok: true } | Extract<Outcome, { ok: false }>> {
  try {
    await call;
    return { ok: true };
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return { ok: false, code: error.code, details: error.details, message: error.message };
  }
}

const logger: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => logger };
const store = memoryStore();
const fn = () => 1;
const badValues: unknown[] = [undefined, null, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 2 ** 60, '', ' ', 'x', '/x', true, false, [], [''], ['x'], ['x', 5], {}, { a: 1 }, fn, new Date(0)];

// The options an adapter takes, each with the values that must pass and the wrong ones above.
const optionValues: Record<string, unknown[]> = {
  secret: ['whsec_a', ['whsec_a', 'whsec_b']],
  handlers: [new Webhooks()],
  store: [store],
  database: ['./x.db', '  ./x.db  '],
  toleranceSeconds: [0, 300, 1.5],
  handlerTimeoutMs: [1, MAX_TIMER_MS],
  logger: [logger, false],
  onOutcome: [fn],
  legacySignature: [true, false],
  onUnknownEvent: ['acknowledge', 'reject', 'ignore'],
  clock: [Date.now],
  inbox: [true, false, { concurrency: 2 }, { concurrency: 0 }, { concurrency: 'x' }, { concurrency: 1.5 }, { nope: 1 }, { retryDelaysMs: [1, 2] }, { retryDelaysMs: [-1] }, { retryDelaysMs: 'x' }, { leaseMs: 0, closeTimeoutMs: -1 }, { pollIntervalMs: 0, extra: 1 }],
  ordering: [true, { onStale: 'run' }, { onStale: 'never' }, { key: fn }, { key: 'x' }, { other: 1 }, { onStale: 'run', other: 1 }],
  metrics: [{ meter: 1 }, { meter: fn, extra: 1 }, { extra: 1 }],
  path: ['/', '/hooks', 'hooks'],
  maxBodyBytes: [1, 1024, 0],
  bodyTimeoutMs: [1, 0.5, MAX_TIMER_MS + 1],
};

describe('the zod-free option checks give the errors the zod schemas gave', () => {
  it.each(Object.keys(optionValues))('the adapters option %s, with every value', (name) => {
    for (const value of [...optionValues[name]!, ...badValues]) {
      const input = name === 'secret' ? { secret: value } : { secret: 'whsec_a', [name]: value };
      expectSame(zodHandler, adapterCheck, input);
    }
  });

  it('the options as a whole: not an object, unknown options, several problems, store and database together', () => {
    for (const input of [undefined, null, 5, true, fn, {}, { secret: 'whsec_a', nope: 1 }, { nope: 1 }, { secret: '', nope: 1 }, { secret: 'whsec_a', store, database: 'x.db' }, { secret: 'whsec_a', store, database: 'x.db', nope: 1 }, { secret: 'whsec_a', handlerTimeoutMs: 0, toleranceSeconds: -1 }, { secret: ['', 'whsec_a'], path: 'x' }, { secret: [5] }]) {
      expectSame(zodHandler, adapterCheck, input);
    }
  });

  it('the stores: retention, the SQLite connection, the file argument', () => {
    const zodSqlite = z.strictObject({ ...zodRetention, ...zodConnection });
    const sqlite = strictObject({ ...retentionShape, ...sqliteConnectionShape });
    const values: Record<string, unknown[]> = {
      retentionMs: [MIN_RETENTION_MS, MIN_RETENTION_MS - 1, 2 ** 60],
      synchronous: ['NORMAL', 'FULL', 'OFF'],
      busyTimeoutMs: [0, 5_000, -1],
      driver: [...SQLITE_DRIVERS, 'sqlite3'],
    };
    for (const [name, given] of Object.entries(values)) for (const value of [...given, ...badValues]) expectSame(zodSqlite, sqlite, { [name]: value });
    for (const input of [{}, { other: 1 }, undefined, null]) expectSame(zodSqlite, sqlite, input);
    for (const value of ['x.db', ' ', '', undefined, 5]) {
      const expected = outcome(() => parseOptions(z.strictObject({ database: zodSqliteTarget }), { database: value }, 'sqliteStore'));
      expect(outcome(() => ({ database: checkArgument(sqliteTarget, 'database', value, 'sqliteStore') }))).toEqual(expected);
    }
  });

  it("the inbox API's filters", async () => {
    const receiver = createReceiver({ secret: 'whsec_a', store: memoryStore(), logger: false });
    try {
      for (const input of [{ status: 'pending' }, { status: 'x' }, { type: 5 }, { limit: 0 }, { limit: 10 }, { other: 1 }, null, 5]) {
        const expected = outcome(() => parseOptions(zodFilter, input, 'inbox.list'));
        const actual = await settled(receiver.inbox.list(input as never));
        if (expected.ok) expect(actual.ok).toBe(true);
        else expect(actual).toEqual(expected);
      }
      for (const input of [{ status: 'done' }, { status: 'pending' }, {}, { status: 'dead', before: 'x' }, { status: 'dead', before: new Date(0) }, { status: 'dead', before: 5, other: 1 }]) {
        const expected = outcome(() => parseOptions(zodPurge, input, 'inbox.purge'));
        const actual = await settled(receiver.inbox.purge(input as never));
        if (expected.ok) expect(actual.ok).toBe(true);
        else expect(actual).toEqual(expected);
      }
    } finally {
      await receiver.close();
    }
  });
});
