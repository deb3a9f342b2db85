import type { AttemptReport } from '../dispatcher/attempt-report.js';
import { withForward, type ForwardLog } from './forwards.js';
import type { WebhookRegistry } from './webhook-registry.js';

/**
 * An attempt report of the sandbox's Dispatcher in the sandbox's terms: the webhook's `wh_…` id
 * as the sandbox API shows it, the receiver's URL instead of the fault proxy's, and the
 * receiver's side of the attempt (its address; why it gave no answer).
 */
export function inSandboxTerms(report: AttemptReport, webhooks: Pick<WebhookRegistry, 'anyByDispatcherId'>, forwards: Pick<ForwardLog, 'of'>): AttemptReport {
  const webhook = webhooks.anyByDispatcherId(report.attempt.webhook_id);
  if (webhook === undefined) return report;
  const forward = forwards.of(webhook.id, report.attempt.event_id).get(report.attempt.attempt_number);
  return {
    attempt: { ...withForward(report.attempt, forward), webhook_id: webhook.id, url: webhook.url },
    delivery: { ...report.delivery, webhook_id: webhook.id },
  };
}
