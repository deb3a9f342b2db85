import { z } from 'zod';
import { callable, numberIn, parseOptions } from '../kernel/configuration.js';
import type { AttemptReport } from '../dispatcher/attempt-report.js';
import { DELIVERY_TIMEOUT_MS } from '../dispatcher/dispatcher-defaults.js';
import type { ResolveHost } from '../dispatcher/url-guard.js';
import { isLogger, type LoggerOption } from '../logging/logger.js';
import { faultsInput, type FaultsInput } from './faults.js';
import { PLAN_LIMITS_PER_MINUTE, type SandboxPlan } from './http/rate-limit.js';
import type { SandboxWebhookStatusChange } from './webhook-status.js';
import { MAX_TIMER_MS } from '../kernel/timers.js';
import { DEFAULT_SANDBOX_ACCOUNTS, MAX_SANDBOX_ACCOUNTS } from './account-count.js';

/** The options of `createSandbox()`; every one is checked when it runs. */
export interface SandboxOptions {
  /** Port on 127.0.0.1; 0 picks a free one. @default 0 (the CLI's default is 4010) */
  port?: number;
  /** SQLite file for the sandbox's data and the Dispatcher's log; kept across runs. @default a temporary file, deleted by close() */
  database?: string;
  /**
   * Makes the run reproducible: ids, invented values and the API key come from this seed, and
   * the clock starts at `startAt` and moves only by a second per change and by advances.
   * @default none: random ids, a clock that follows the wall clock
   */
  seed?: number;
  /** The first account's test key (`sk_test_…`). @default a new one (from the seed when given) */
  apiKey?: string;
  /**
   * How many accounts the sandbox has, from 1 to {@link MAX_SANDBOX_ACCOUNTS}: each its own test
   * key, business, resources and webhooks (`sandbox.accounts`). The first is the one `apiKey`
   * names. @default 1 (DEFAULT_SANDBOX_ACCOUNTS)
   */
  accounts?: number;
  /** The plan whose request limit per minute applies (the document's table). @default 'pro' (300 a minute) */
  plan?: SandboxPlan;
  /** Faults of every new registration; change them per registration through the API. @default none */
  faults?: FaultsInput;
  /** The Dispatcher's time limit per attempt. @default 30_000 (DELIVERY_TIMEOUT_MS) */
  deliveryTimeoutMs?: number;
  /** Where the sandbox clock starts. @default 2026-01-05T08:00:00.000Z with a seed, else now */
  startAt?: Date | string | number;
  /**
   * Resolves host names: when a webhook URL is registered, and when the fault proxy connects to
   * the receiver, whose address is checked again then (a name re-pointed at a private or loopback
   * address after registration is refused, as the Dispatcher refuses it).
   * @default dns.lookup, all addresses
   */
  resolveHost?: ResolveHost;
  /** The Dispatcher's logger, or `false`. @default false */
  logger?: LoggerOption;
  /**
   * Called after every delivery attempt is recorded (the Dispatcher's onAttempt), in the
   * sandbox's terms: `webhook_id` is the sandbox's `wh_…` id and `url` the receiver's URL.
   */
  onAttempt?: (report: AttemptReport) => void;
  /**
   * Called when a webhook is disabled (by the disable rule: every attempt failing for 72 h of
   * sandbox time; or by `PATCH /v1/webhooks/{id} {"status": "disabled"}`) or made active again.
   * @example onWebhookStatus: (change) => console.log(change.webhook_id, change.message)
   */
  onWebhookStatus?: (change: SandboxWebhookStatusChange) => void;
}

/** The clock's start in a seeded run: a Monday morning in Vienna's winter (UTC). */
export const SEEDED_START = Date.UTC(2026, 0, 5, 8, 0, 0);

const time = z.union([z.date(), z.string(), z.number()], { error: 'must be a Date, an ISO 8601 string or ms since the epoch' }).transform((input, context) => {
  const ms = input instanceof Date ? input.getTime() : typeof input === 'number' ? input : Date.parse(input);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  context.addIssue({ code: 'custom', message: 'must be a Date, an ISO 8601 string or ms since the epoch' });
  return z.NEVER;
});

const sandboxOptions = z.strictObject({
  port: numberIn(0, 65_535, { integer: true }).default(0),
  database: z.string({ error: 'must be a SQLite file path' }).trim().min(1, { error: 'must be a SQLite file path' }).optional(),
  seed: numberIn(0, 4_294_967_295, { integer: true }).optional(),
  apiKey: z.string().regex(/^sk_test_[A-Za-z0-9_]{8,}$/, { error: 'must be a test key: sk_test_ and at least 8 letters or digits' }).optional(),
  accounts: numberIn(1, MAX_SANDBOX_ACCOUNTS, { integer: true }).default(DEFAULT_SANDBOX_ACCOUNTS),
  plan: z.enum(Object.keys(PLAN_LIMITS_PER_MINUTE) as [SandboxPlan, ...SandboxPlan[]], { error: `must be one of ${Object.keys(PLAN_LIMITS_PER_MINUTE).join(', ')}` }).default('pro'),
  faults: faultsInput.default(faultsInput.parse({})),
  deliveryTimeoutMs: numberIn(1, MAX_TIMER_MS).default(DELIVERY_TIMEOUT_MS),
  startAt: time.optional(),
  logger: z.union([z.literal(false), z.custom<Exclude<LoggerOption, false>>(isLogger)], { error: 'must be a logger (debug, info, warn, error, child) or false' }).default(false),
  resolveHost: callable<ResolveHost>('(hostname) => Promise<string[]>').optional(),
  onAttempt: callable<(report: AttemptReport) => void>('(report) => void').optional(),
  onWebhookStatus: callable<(change: SandboxWebhookStatusChange) => void>('(change) => void').optional(),
});

export type ValidSandboxOptions = z.output<typeof sandboxOptions>;

export function parseSandboxOptions(options: SandboxOptions): ValidSandboxOptions {
  return parseOptions(sandboxOptions, options, 'createSandbox');
}
