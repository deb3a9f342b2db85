import { countStates, type WebhookStateCounts } from '../ports/webhook-state-counts.js';
import type { EventPattern } from '../events/catalog.js';
import { newId } from '../kernel/ids.js';
import { DispatcherError, NotFoundError } from './errors.js';
import type { EnabledWebhook, WebhookRegistration, WebhookStatus, WebhookWithSecret } from './records.js';
import type { LegacyScopeWarning } from './legacy-scope.js';
import { checkSigning, validateOwner, validateAlgorithm, validateEvents, validateGrace, validateHeaders, validateRateLimit, validateScheme, validateStatus } from './registration-rules.js';
import { issueSecret } from './secret.js';
import type { SigningAlgorithm, WebhookScheme } from '../ports/dispatch-statuses.js';
import type { DispatchStore, StoreAccess, StoredWebhook, WebhookActivity, WebhookChanges, WebhookPageQuery } from '../ports/dispatch-store.js';
import { HEALTHY, healthOfStatus } from './webhook-health.js';
import type { UrlGuard } from './url-guard.js';
import { toRegistration } from './views.js';
import { replayRange, type ReplayOptions, type ReplayResult } from './replay.js';

/** What `dispatcher.webhooks.create()` takes: the business, the receiver's URL, the events, optional custom headers. */
export interface CreateWebhookInput {
  /**
   * The business whose events it receives (an event's `business_id`); only those. Without it and
   * without `scope` the webhook receives every business's events, as in 1.0, with a warning.
   */
  business_id?: string;
  /**
   * `'platform'`: every business's events (an operator's audit sink), without `business_id`.
   * `'business'` (implied by `business_id`): its own business's only.
   */
  scope?: 'business' | 'platform';
  /** https URL of the receiver (plain http to localhost only with `allowInsecureUrls`). */
  url: string;
  /** Event types or patterns: `invoice.paid`, `invoice.*`, `*`. */
  events: readonly EventPattern[];
  /** Custom headers sent with every delivery, e.g. a receiver-side API key. @default {} */
  headers?: Record<string, string>;
  /** @default 'active' */
  status?: WebhookStatus;
  /**
   * At most this many attempts start per second for this webhook, over every worker (bursts up to
   * one second's worth). Deliveries over the budget wait in the queue without holding a slot.
   * `null` removes the limit. @default null
   */
  rate_limit?: number | null;
  /**
   * The headers deliveries are signed with: `'svc'`, the platform's `x-svc-signature` and
   * `x-svc-timestamp`; `'standard-webhooks'`, `webhook-id`, `webhook-timestamp` and
   * `webhook-signature`; `'both'`, each request carries both sets (for a receiver moving from one
   * to the other). @default 'svc'
   */
  scheme?: WebhookScheme;
  /**
   * `'hmac-sha256'`: a `whsec_` secret shared with the receiver. `'ed25519'` (with
   * `scheme: 'standard-webhooks'`): a key pair; the dispatcher signs `v1a` with the private key,
   * which never leaves it, and the receiver verifies with `public_key` (`whpk_…`). Chosen at
   * creation. @default 'hmac-sha256'
   */
  algorithm?: SigningAlgorithm;
}

/** What `webhooks.rotateSecret()` takes. */
export interface RotateSecretOptions {
  /**
   * For this long the previous secret (or key) keeps signing beside the new one, so that the
   * receiver can switch at any moment in between: `0` stops it at once. At most 30 days.
   * @default 0
   */
  graceMs?: number;
}

/** What `webhooks.enable()` takes. */
export interface EnableWebhookOptions {
  /** Also send the events recorded as skipped while it was disabled, each once, in order. @default false */
  replay?: boolean;
}

/** Fields to change; the others stay. `headers` replaces all custom headers (`{}` removes them). */
export type UpdateWebhookInput = Partial<CreateWebhookInput>;

export interface RegistrationsOptions {
  store: StoreAccess;
  guard: UrlGuard;
  clock: () => number;
  /** The wait before a replayed delivery's first attempt (the schedule's first), ms. */
  firstWaitMs: number;
  /** Tells the worker that deliveries may be due (after enable). */
  wake: () => void;
  /** Warns once about a registration without an owner. */
  legacy: LegacyScopeWarning;
  /** The delivery log's retention (ms): how far back a replay by range may reach. */
  retentionMs: number;
}

/** How many registrations a page of `webhooks.list(query)` has when `limit` is not given. @default 100 */
export const DEFAULT_WEBHOOK_PAGE_LIMIT = 100;
/** The most registrations one page of `webhooks.list(query)` has. @default 1000 */
export const MAX_WEBHOOK_PAGE_LIMIT = 1000;

/** What `webhooks.list(query)` takes: every criterion given must hold. */
export interface ListWebhooksQuery {
  /** The registrations of this business (not the platform-wide ones). */
  business_id?: string;
  status?: WebhookStatus;
  /** @default DEFAULT_WEBHOOK_PAGE_LIMIT (at most MAX_WEBHOOK_PAGE_LIMIT) */
  limit?: number;
  /** `next_cursor` of the page before; absent for the first page. */
  cursor?: string;
}

/** One page of `webhooks.list(query)`, in the order the registrations were created. */
export interface WebhookPage {
  data: WebhookRegistration[];
  /** Pass as `cursor` for the next page; `null` after the last. Registrations added meanwhile come on later pages. */
  next_cursor: string | null;
}

/** What `webhooks.count()` returns: the registrations in all and per state. */
export interface WebhookCounts extends WebhookStateCounts {
  total: number;
}

/** `dispatcher.webhooks`: the registrations, as the platform's webhook management endpoints. */
export class Registrations {
  constructor(private readonly options: RegistrationsOptions) {}

  /**
   * Registers a webhook and issues its secret (`whsec_…`), which only this answer and
   * `rotateSecret` reveal. For ed25519 a key pair is made instead: `secret` and `public_key` are
   * then the `whpk_…` public key, and the private key is never shown.
   *
   * @example
   * const { id, secret } = await dispatcher.webhooks.create({ url: 'https://example.com/webhooks', events: ['invoice.*'] });
   */
  async create(input: CreateWebhookInput): Promise<WebhookWithSecret> {
    const fields = inputObject(input);
    const url = await this.options.guard.check(fields.url);
    const events = validateEvents(fields.events);
    const headers = fields.headers === undefined ? {} : validateHeaders(fields.headers);
    const status = fields.status === undefined ? 'active' : validateStatus(fields.status);
    const rateLimit = fields.rate_limit === undefined ? null : validateRateLimit(fields.rate_limit);
    const scheme = fields.scheme === undefined ? 'svc' : validateScheme(fields.scheme);
    const algorithm = fields.algorithm === undefined ? 'hmac-sha256' : validateAlgorithm(fields.algorithm);
    checkSigning(scheme, algorithm);
    const owner = validateOwner(fields.business_id, fields.scope);
    const issued = issueSecret(algorithm);
    const store = await this.options.store();
    const now = this.options.clock();
    const webhook: StoredWebhook = {
      id: newId('wh'),
      ...owner,
      url,
      events,
      headers,
      secret: issued.signing,
      rate_limit: rateLimit,
      scheme,
      algorithm,
      public_key: issued.publicKey,
      previous_secret: null,
      previous_secret_expires_at: null,
      ...HEALTHY,
      ...healthOfStatus(status, now),
      created_at: now,
      updated_at: now,
    };
    await store.insertWebhook(webhook);
    this.options.legacy.check([webhook]);
    return { ...toRegistration(webhook), secret: issued.receiver };
  }

  /**
   * Without a query: every registration, oldest first (without secrets), with its health and
   * what it is doing now, as in 1.0 (it reads them all; page with a query when there are many).
   * With a query: one page, in the order they were created, and the cursor of the next.
   *
   * @example
   * const page = await dispatcher.webhooks.list({ business_id: 'biz_4mVt9QeZxK2hRw7L', limit: 50 });
   * const more = page.next_cursor ? await dispatcher.webhooks.list({ business_id: 'biz_4mVt9QeZxK2hRw7L', limit: 50, cursor: page.next_cursor }) : undefined;
   */
  async list(): Promise<WebhookRegistration[]>;
  async list(query: ListWebhooksQuery): Promise<WebhookPage>;
  async list(query?: ListWebhooksQuery): Promise<WebhookRegistration[] | WebhookPage> {
    const store = await this.options.store();
    if (query === undefined) {
      const [webhooks, activity] = await Promise.all([store.listWebhooks(), store.webhookActivity(this.options.clock())]);
      return webhooks.map((webhook) => toRegistration(webhook, activity.get(webhook.id)));
    }
    const valid = pageQuery(query);
    const page = await store.pageWebhooks(valid);
    const activity: Map<string, WebhookActivity> = page.webhooks.length === 0 ? new Map<string, WebhookActivity>() : await store.webhookActivity(this.options.clock());
    return { data: page.webhooks.map((webhook) => toRegistration(webhook, activity.get(webhook.id))), next_cursor: page.next === null ? null : encodeCursor(page.next) };
  }

  /**
   * How many registrations there are (deleted ones not), in all and per state: `disabled`;
   * `failing` (active, with a failure streak); `active` (the others). Counted by the database,
   * so its cost does not grow with reading every registration.
   *
   * @example
   * const { total, failing } = await dispatcher.webhooks.count();
   */
  async count(): Promise<WebhookCounts> {
    const store = await this.options.store();
    const counts = store.countWebhooks ? await store.countWebhooks() : countStates(await store.listWebhooks());
    return { total: counts.active + counts.failing + counts.disabled, ...counts };
  }

  /** @throws NotFoundError */
  async get(id: string): Promise<WebhookRegistration> {
    const store = await this.options.store();
    const webhook = await store.getWebhook(id);
    if (!webhook) throw new NotFoundError('webhook', id);
    return this.view(store, webhook);
  }

  /**
   * Makes a disabled webhook active again with a clean slate (failure streak 0); its pending
   * deliveries are sent again (overdue ones at once). With `replay`, the events recorded as
   * skipped while it was disabled are queued too, each once, oldest first. Enabling an active
   * webhook changes nothing but can still replay.
   *
   * @throws NotFoundError
   * @example
   * const { replayed } = await dispatcher.webhooks.enable(id, { replay: true });
   */
  async enable(id: string, options: EnableWebhookOptions = {}): Promise<EnabledWebhook> {
    const store = await this.options.store();
    const current = await store.getWebhook(id);
    if (!current) throw new NotFoundError('webhook', id);
    const now = this.options.clock();
    const webhook = current.status === 'active' ? current : await this.change(id, healthOfStatus('active', now));
    const replayed = options.replay === true ? await this.replaySkipped(store, id, now) : 0;
    this.options.wake();
    return { ...(await this.view(store, webhook)), replayed };
  }

  /**
   * Changes a registration; each given field is checked as on create. A disabled webhook gets no
   * new deliveries (new events are recorded as skipped), and its pending ones wait until it is
   * active again; `status: 'active'` is `enable(id)` without a replay.
   *
   * @example
   * await dispatcher.webhooks.update(id, { status: 'disabled' });
   */
  async update(id: string, changes: UpdateWebhookInput): Promise<WebhookRegistration> {
    const fields = inputObject(changes);
    const valid: WebhookChanges = {};
    if (fields.url !== undefined) valid.url = await this.options.guard.check(fields.url);
    if (fields.events !== undefined) valid.events = validateEvents(fields.events);
    if (fields.headers !== undefined) valid.headers = validateHeaders(fields.headers);
    if (fields.rate_limit !== undefined) valid.rate_limit = validateRateLimit(fields.rate_limit);
    if (fields.scheme !== undefined || fields.algorithm !== undefined) Object.assign(valid, await this.signingChange(id, fields.scheme, fields.algorithm));
    if (fields.business_id !== undefined || fields.scope !== undefined) Object.assign(valid, validateOwner(fields.business_id, fields.scope));
    if (fields.status !== undefined) Object.assign(valid, await this.statusChange(id, validateStatus(fields.status)));
    const store = await this.options.store();
    const updated = await this.change(id, valid);
    if (updated.status === 'active') this.options.wake();
    return this.view(store, updated);
  }

  /**
   * Deletes a registration. Its delivery log stays; its pending deliveries end as `finally_failed`.
   * @throws NotFoundError
   */
  async delete(id: string): Promise<void> {
    const store = await this.options.store();
    if (!(await store.deleteWebhook(id, this.options.clock()))) throw new NotFoundError('webhook', id);
  }

  /**
   * Issues a new secret (or, for ed25519, a new key pair) and returns what the receiver verifies
   * with: the `whsec_` secret, or the `whpk_` public key. Every attempt from now on, retries of
   * older events included, is signed with it. Without a grace the old secret stops at once; with
   * `graceMs` it keeps signing beside the new one until then (both in `webhook-signature`; for the
   * platform's scheme `x-svc-signature` keeps the old one's and `x-svc-signature-next` carries the
   * new one's, see docs/dispatcher.md). A rotation during a grace ends that grace: only the
   * secret it replaces keeps signing.
   *
   * @throws NotFoundError
   * @example
   * const secret = await dispatcher.webhooks.rotateSecret(id, { graceMs: 24 * 60 * 60 * 1000 });
   */
  async rotateSecret(id: string, options: RotateSecretOptions = {}): Promise<string> {
    const graceMs = options.graceMs === undefined ? 0 : validateGrace(options.graceMs);
    const store = await this.options.store();
    const current = await store.getWebhook(id);
    if (!current) throw new NotFoundError('webhook', id);
    const issued = issueSecret(current.algorithm);
    const grace = graceMs > 0 ? { previous_secret: current.secret, previous_secret_expires_at: this.options.clock() + graceMs } : { previous_secret: null, previous_secret_expires_at: null };
    await this.change(id, { secret: issued.signing, public_key: issued.publicKey, ...grace });
    return issued.receiver;
  }

  /**
   * Queues the registration's business's events created in [`from`, `to`) once more to it,
   * oldest first, as new deliveries marked `replay` (each on the retry schedule from its first
   * attempt): those of the types it subscribes to, narrowed by `types`. Idempotent while they are
   * pending: an event with a pending delivery to this registration (a replay's or its first) is
   * skipped, also when two replays run at once in different processes. At most
   * `MAX_REPLAY_EVENTS` (10 000) events a call. A disabled registration keeps them until it is
   * enabled.
   *
   * @throws NotFoundError; DispatcherError `VALIDATION_ERROR` (`details.field`), `EVENTS_EXPIRED`
   *   (`from` older than the retention), `REPLAY_TOO_LARGE` (a {@link ReplayTooLargeError}),
   *   `REPLAY_UNSUPPORTED` (a store without `replayEvents`)
   * @example
   * const { queued, skipped } = await dispatcher.webhooks.replay(id, { from: '2026-11-27T18:00:00Z', to: '2026-11-30T08:00:00Z', types: ['invoice.*'] });
   */
  async replay(id: string, options: ReplayOptions): Promise<ReplayResult> {
    const store = await this.options.store();
    const result = await replayRange(id, options, { store, now: this.options.clock(), retentionMs: this.options.retentionMs, firstWaitMs: this.options.firstWaitMs });
    if (result.queued > 0) this.options.wake();
    return result;
  }

  /** A scheme or algorithm given to `update`: checked against the registration's secret. */
  private async signingChange(id: string, scheme: unknown, algorithm: unknown): Promise<WebhookChanges> {
    const store = await this.options.store();
    const current = await store.getWebhook(id);
    if (!current) throw new NotFoundError('webhook', id);
    if (algorithm !== undefined && validateAlgorithm(algorithm) !== current.algorithm) {
      throw new DispatcherError('VALIDATION_ERROR', 'The algorithm is chosen when a webhook is created: register a new one to change it', {
        field: 'algorithm',
        reason: 'cannot be changed',
      });
    }
    if (scheme === undefined) return {};
    const next = validateScheme(scheme);
    if (next !== current.scheme) checkSigning(next, current.algorithm, current.secret);
    return { scheme: next };
  }

  /** A status given to `update`: the health fields it brings, when it is a change (the same status again changes nothing). */
  private async statusChange(id: string, status: WebhookStatus): Promise<WebhookChanges> {
    const store = await this.options.store();
    const current = await store.getWebhook(id);
    if (!current) throw new NotFoundError('webhook', id);
    return current.status === status ? {} : healthOfStatus(status, this.options.clock());
  }

  private async replaySkipped(store: DispatchStore, id: string, now: number): Promise<number> {
    const eventIds = await store.listSkipped(id);
    if (eventIds.length === 0) return 0;
    const firstDue = now + this.options.firstWaitMs;
    return store.replaySkipped(id, eventIds.map((eventId) => ({ id: newId('dlv'), webhook_id: id, event_id: eventId, next_attempt_at: firstDue })), now);
  }

  private async view(store: DispatchStore, webhook: StoredWebhook): Promise<WebhookRegistration> {
    const activity = await store.webhookActivity(this.options.clock());
    return toRegistration(webhook, activity.get(webhook.id));
  }

  private async change(id: string, changes: WebhookChanges) {
    const store = await this.options.store();
    const updated = await store.updateWebhook(id, changes, this.options.clock());
    if (!updated) throw new NotFoundError('webhook', id);
    return updated;
  }
}

function pageQuery(query: ListWebhooksQuery): WebhookPageQuery {
  const given = inputObject(query as object) as Partial<Record<keyof ListWebhooksQuery, unknown>>;
  for (const key of Object.keys(given)) {
    if (!['business_id', 'status', 'limit', 'cursor'].includes(key)) throw new DispatcherError('VALIDATION_ERROR', `Unknown option "${key}"`, { field: key, reason: 'is not an option' });
  }
  const limit = given.limit ?? DEFAULT_WEBHOOK_PAGE_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_WEBHOOK_PAGE_LIMIT) {
    throw new DispatcherError('VALIDATION_ERROR', `limit must be a whole number from 1 to ${MAX_WEBHOOK_PAGE_LIMIT}`, { field: 'limit', reason: `must be 1–${MAX_WEBHOOK_PAGE_LIMIT}` });
  }
  const valid: WebhookPageQuery = { after: given.cursor === undefined ? 0 : decodeCursor(given.cursor), limit };
  if (given.business_id !== undefined) valid.business_id = validateOwner(given.business_id, undefined).business_id as string;
  if (given.status !== undefined) valid.status = validateStatus(given.status);
  return valid;
}

const CURSOR_PREFIX = 'whc_';

function encodeCursor(position: number): string {
  return CURSOR_PREFIX + Buffer.from(String(position)).toString('base64url');
}

function decodeCursor(cursor: unknown): number {
  const position = typeof cursor === 'string' && cursor.startsWith(CURSOR_PREFIX) ? Number(Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString()) : Number.NaN;
  if (!Number.isSafeInteger(position) || position < 0) throw new DispatcherError('VALIDATION_ERROR', 'cursor is not a cursor of webhooks.list', { field: 'cursor', reason: 'not a next_cursor of webhooks.list' });
  return position;
}

function inputObject<T extends object>(input: T): Partial<Record<keyof CreateWebhookInput, unknown>> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new DispatcherError('VALIDATION_ERROR', 'Expected an object with url, events and optional headers', {
      field: '',
      reason: 'must be an object',
    });
  }
  return input;
}
