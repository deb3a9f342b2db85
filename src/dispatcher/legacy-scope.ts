import type { Logger } from '../logging/logger.js';
import type { StoredWebhook } from '../ports/dispatch-store.js';

/**
 * The one-time warning for a registration of scope `all` (made without `business_id` or
 * `scope`, as in 1.0): it receives every business's events. Each registration is named once per
 * dispatcher, when it is created or when an event first reaches it.
 */
export class LegacyScopeWarning {
  private readonly warned = new Set<string>();

  constructor(private readonly logger: Logger) {}

  /** Warns once for each of `webhooks` of scope `all`. */
  check(webhooks: readonly Pick<StoredWebhook, 'id' | 'scope'>[]): void {
    for (const webhook of webhooks) {
      if (webhook.scope !== 'all' || this.warned.has(webhook.id)) continue;
      this.warned.add(webhook.id);
      try {
        this.logger.warn(
          { webhook_id: webhook.id },
          `webhook ${webhook.id} has no business_id and receives every business's events; give it business_id, or scope: 'platform' if that is intended`,
        );
      } catch {
        // A logger that throws must not fail the emit or the create it warns about.
      }
    }
  }
}
