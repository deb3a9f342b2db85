import type { AttemptReport } from '../dispatcher/attempt-report.js';
import type { WebhookRegistry } from './webhook-registry.js';

/**
 * An attempt report of the sandbox's Dispatcher in the sandbox's terms: the webhook's `wh_…` id
 * as the sandbox API shows it, and the receiver's URL instead of the fault proxy's.
 */
export function inSandboxTerms(report: AttemptReport, webhooks: Pick<WebhookRegistry, 'anyByDispatcherId'>): AttemptReport {
  const webhook = webhooks.anyByDispatcherId(report.attempt.webhook_id);
  if (webhook === undefined) return report;
  return {
    attempt: { ...report.attempt, webhook_id: webhook.id, url: webhook.url },
    delivery: { ...report.delivery, webhook_id: webhook.id },
  };
}
