import type { EventPattern } from '../events/catalog.js';
import { newId } from '../ids.js';
import { DispatcherError, NotFoundError } from './errors.js';
import type { WebhookRegistration, WebhookStatus, WebhookWithSecret } from './records.js';
import { validateEvents, validateHeaders, validateStatus } from './registration-rules.js';
import { newSecret } from './secret.js';
import type { StoreAccess, WebhookChanges } from './store.js';
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
}

/** Fields to change; the others stay. `headers` replaces all custom headers (`{}` removes them). */
export type UpdateWebhookInput = Partial<CreateWebhookInput>;

export interface RegistrationsOptions {
  store: StoreAccess;
  guard: UrlGuard;
  clock: () => number;
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
    const store = await this.options.store();
    const now = this.options.clock();
    const webhook = { id: newId('wh'), url, events, headers, status, secret: newSecret(), created_at: now, updated_at: now };
    await store.insertWebhook(webhook);
    return { ...toRegistration(webhook), secret: webhook.secret };
  }

  /** Every registration, oldest first (without secrets). */
  async list(): Promise<WebhookRegistration[]> {
    const store = await this.options.store();
    return (await store.listWebhooks()).map(toRegistration);
  }

  /** @throws NotFoundError */
  async get(id: string): Promise<WebhookRegistration> {
    const store = await this.options.store();
    const webhook = await store.getWebhook(id);
    if (!webhook) throw new NotFoundError('webhook', id);
    return toRegistration(webhook);
  }

  /**
   * Changes a registration; each given field is checked as on create. A disabled webhook gets no
   * new deliveries, and its pending ones wait until it is active again.
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
    if (fields.status !== undefined) valid.status = validateStatus(fields.status);
    return toRegistration(await this.change(id, valid));
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
