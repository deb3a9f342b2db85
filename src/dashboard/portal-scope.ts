import { countStates } from '../ports/webhook-state-counts.js';
import { MAX_WEBHOOK_PAGE_LIMIT, type ListWebhooksQuery, type WebhookCounts, type WebhookPage } from '../dispatcher/registrations.js';
import type { DeliveryFilter, DeliveryListOptions } from '../dispatcher/delivery-filters.js';
import { DEFAULT_LIST_LIMIT } from '../dispatcher/delivery-filters.js';
import type { DispatcherCore as Dispatcher } from '../dispatcher/dispatcher.js';
import { NotFoundError } from '../dispatcher/errors.js';
import { SlidingWindowLimiter } from '../dispatcher/rate-limit.js';
import type { Delivery, WebhookRegistration } from '../dispatcher/records.js';
import type { CreateWebhookInput, EnableWebhookOptions, RotateSecretOptions, UpdateWebhookInput } from '../dispatcher/registrations.js';
import type { ReplayOptions } from '../dispatcher/replay.js';

/*
 * One business's view of a dispatcher, for the portal's pages: the same calls the dashboard's
 * pages make, each reading and changing only that business's registrations and their
 * deliveries. Another business's id is the same NotFoundError as an id that does not exist.
 */

/** The owner a registration record names: `business_id`, unless it is platform-scoped. */
export function ownerOf(webhook: WebhookRegistration): string | undefined {
  const record = webhook as WebhookRegistration & { business_id?: unknown; scope?: unknown };
  if (record.scope === 'platform') return undefined;
  return typeof record.business_id === 'string' ? record.business_id : undefined;
}

/** The per-business manual-retry limiters of one portal (the dispatcher's own limit applies as well). */
export class BusinessRetryLimits {
  private readonly limiters = new Map<string, SlidingWindowLimiter>();

  constructor(private readonly clock: () => number) {}

  take(dispatcher: Dispatcher, businessId: string): void {
    let limiter = this.limiters.get(businessId);
    if (!limiter) {
      if (this.limiters.size >= 10_000) this.limiters.clear();
      limiter = new SlidingWindowLimiter(dispatcher.settings.manualRetryLimit, this.clock);
      this.limiters.set(businessId, limiter);
    }
    limiter.take();
  }
}

/** What the views call on a dispatcher, scoped to `businessId`. */
export function scopedDispatcher(dispatcher: Dispatcher, businessId: string, limits: BusinessRetryLimits): Dispatcher {
  const owned = (webhook: WebhookRegistration): boolean => ownerOf(webhook) === businessId;

  async function ownWebhook(id: string): Promise<WebhookRegistration> {
    const webhook = await dispatcher.webhooks.get(id);
    if (!owned(webhook)) throw new NotFoundError('webhook', id);
    return webhook;
  }

  /** Every registration of the business, read page by page by its index (not every registration's). */
  async function ownWebhooks(): Promise<WebhookRegistration[]> {
    const own: WebhookRegistration[] = [];
    let cursor: string | undefined;
    do {
      const page = await dispatcher.webhooks.list({ business_id: businessId, limit: MAX_WEBHOOK_PAGE_LIMIT, ...(cursor === undefined ? {} : { cursor }) });
      own.push(...page.data.filter(owned));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    return own;
  }

  async function ownDelivery(id: string): Promise<void> {
    const delivery = await dispatcher.deliveries.get(id);
    try {
      await ownWebhook(delivery.webhook_id);
    } catch (error) {
      if (error instanceof NotFoundError) throw new NotFoundError('delivery', id);
      throw error;
    }
  }

  /** The registrations a filter covers: the one it names (when it is the business's), or all of the business's. */
  async function webhookIdsOf(filter: DeliveryFilter): Promise<string[]> {
    if (filter.webhook_id !== undefined) return [(await ownWebhook(filter.webhook_id)).id];
    return (await ownWebhooks()).map((webhook) => webhook.id);
  }

  function list(): Promise<WebhookRegistration[]>;
  function list(query: ListWebhooksQuery): Promise<WebhookPage>;
  async function list(query?: ListWebhooksQuery): Promise<WebhookRegistration[] | WebhookPage> {
    if (query === undefined) return ownWebhooks();
    const page = await dispatcher.webhooks.list({ ...query, business_id: businessId });
    return { ...page, data: page.data.filter(owned) };
  }

  const webhooks = {
    list,
    count: async (): Promise<WebhookCounts> => {
      const counts = countStates(await ownWebhooks());
      return { total: counts.active + counts.failing + counts.disabled, ...counts };
    },
    get: ownWebhook,
    create: (input: CreateWebhookInput) => dispatcher.webhooks.create({ ...input, business_id: businessId }),
    update: async (id: string, changes: UpdateWebhookInput) => {
      await ownWebhook(id);
      return dispatcher.webhooks.update(id, changes);
    },
    enable: async (id: string, options?: EnableWebhookOptions) => {
      await ownWebhook(id);
      return dispatcher.webhooks.enable(id, options);
    },
    delete: async (id: string) => {
      await ownWebhook(id);
      return dispatcher.webhooks.delete(id);
    },
    rotateSecret: async (id: string, options?: RotateSecretOptions) => {
      await ownWebhook(id);
      return dispatcher.webhooks.rotateSecret(id, options);
    },
    // The business's own registration, and its own events only.
    replay: async (id: string, options: ReplayOptions) => {
      await ownWebhook(id);
      return dispatcher.webhooks.replay(id, { ...options, business_id: businessId });
    },
  };

  const deliveries = {
    get: async (id: string) => {
      await ownDelivery(id);
      return dispatcher.deliveries.get(id);
    },
    retry: async (id: string) => {
      await ownDelivery(id);
      limits.take(dispatcher, businessId);
      return dispatcher.deliveries.retry(id);
    },
    count: async (filter: DeliveryFilter = {}) => {
      const ids = await webhookIdsOf(filter);
      const counts = await Promise.all(ids.map((webhook_id) => dispatcher.deliveries.count({ ...filter, webhook_id })));
      return counts.reduce((sum, count) => sum + count, 0);
    },
    list: async (options: DeliveryListOptions = {}) => {
      const ids = await webhookIdsOf(options);
      const { limit = DEFAULT_LIST_LIMIT, offset = 0, ...filter } = options;
      if (ids.length === 1) return dispatcher.deliveries.list({ ...filter, webhook_id: ids[0]!, limit, offset });
      // Newest first over several registrations: each one's first offset + limit, merged.
      const lists = await Promise.all(ids.map((webhook_id) => dispatcher.deliveries.list({ ...filter, webhook_id, limit: Math.min(1000, offset + limit) })));
      const merged: Delivery[] = lists.flat().sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1));
      return merged.slice(offset, offset + limit);
    },
  };

  const scoped = {
    webhooks,
    deliveries,
    settings: dispatcher.settings,
    sendTest: async (webhookId: string) => {
      await ownWebhook(webhookId);
      return dispatcher.sendTest(webhookId);
    },
  };
  // The views call exactly these; anything else they reached for would fail closed (undefined), not leak.
  return scoped as unknown as Dispatcher;
}
