import type { EventPattern } from '../events/catalog.js';
import { newId } from '../kernel/ids.js';
import { DispatcherError, NotFoundError } from './errors.js';
import type { EnabledWebhook, WebhookRegistration, WebhookStatus, WebhookWithSecret } from './records.js';
import { validateEvents, validateHeaders, validateRateLimit, validateStatus } from './registration-rules.js';
import { newSecret } from './secret.js';
import type { DispatchStore, StoreAccess, StoredWebhook, WebhookChanges } from '../ports/dispatch-store.js';
import { HEALTHY, healthOfStatus } from './webhook-health.js';
import type { UrlGuard } from './url-guard.js';
import { toRegistration } from './views.js';

/** What `dispatcher.webhooks.create()` takes: the receiver's URL, the events, optional custom headers. */
export interface CreateWebhookInput {
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
}

/** `dispatcher.webhooks`: the registrations, as the platform's webhook management endpoints. */
export class Registrations {
  constructor(private readonly options: RegistrationsOptions) {}

  /**
   * Registers a webhook and issues its secret (`whsec_…`), which only this answer and
   * `rotateSecret` reveal.
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
    const store = await this.options.store();
    const now = this.options.clock();
    const webhook: StoredWebhook = {
      id: newId('wh'),
      url,
      events,
      headers,
      secret: newSecret(),
      rate_limit: rateLimit,
      ...HEALTHY,
      ...healthOfStatus(status, now),
      created_at: now,
      updated_at: now,
    };
    await store.insertWebhook(webhook);
    return { ...toRegistration(webhook), secret: webhook.secret };
  }

  /** Every registration, oldest first (without secrets), with its health and what it is doing now. */
  async list(): Promise<WebhookRegistration[]> {
    const store = await this.options.store();
    const [webhooks, activity] = await Promise.all([store.listWebhooks(), store.webhookActivity(this.options.clock())]);
    return webhooks.map((webhook) => toRegistration(webhook, activity.get(webhook.id)));
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
    const replayed = options.replay === true ? await this.replay(store, id, now) : 0;
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
   * Issues a new secret and returns it. Every attempt from now on, retries of older events
   * included, is signed with it; the old secret stops working at once.
   */
  async rotateSecret(id: string): Promise<string> {
    const secret = newSecret();
    await this.change(id, { secret });
    return secret;
  }

  /** A status given to `update`: the health fields it brings, when it is a change (the same status again changes nothing). */
  private async statusChange(id: string, status: WebhookStatus): Promise<WebhookChanges> {
    const store = await this.options.store();
    const current = await store.getWebhook(id);
    if (!current) throw new NotFoundError('webhook', id);
    return current.status === status ? {} : healthOfStatus(status, this.options.clock());
  }

  private async replay(store: DispatchStore, id: string, now: number): Promise<number> {
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

function inputObject<T extends object>(input: T): Partial<Record<keyof CreateWebhookInput, unknown>> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new DispatcherError('VALIDATION_ERROR', 'Expected an object with url, events and optional headers', {
      field: '',
      reason: 'must be an object',
    });
  }
  return input;
}
