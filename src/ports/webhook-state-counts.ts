import type { StoredWebhook } from './webhook-fields.js';

/**
 * How many registrations (not deleted) are in each state: `disabled`; `failing` (active, with a
 * failure streak); `active` (the others).
 */
export interface WebhookStateCounts {
  active: number;
  failing: number;
  disabled: number;
}

/** The state a registration is counted in. */
export function webhookState(webhook: Pick<StoredWebhook, 'status' | 'failure_streak'>): keyof WebhookStateCounts {
  if (webhook.status === 'disabled') return 'disabled';
  return webhook.failure_streak > 0 ? 'failing' : 'active';
}

/** {@link webhookState} in SQL, for a GROUP BY over the registrations' table (SQLite and PostgreSQL alike). */
export const WEBHOOK_STATE_SQL = "CASE WHEN status = 'disabled' THEN 'disabled' WHEN failure_streak > 0 THEN 'failing' ELSE 'active' END";

/** The rows of that GROUP BY as counts, every state present. */
export function stateCounts(rows: readonly { state: string; count: number | string }[]): WebhookStateCounts {
  const counts: WebhookStateCounts = { active: 0, failing: 0, disabled: 0 };
  for (const { state, count } of rows) if (state === 'active' || state === 'failing' || state === 'disabled') counts[state] = Number(count);
  return counts;
}

/** The counts of registrations already read (a store without `countWebhooks`). */
export function countStates(webhooks: readonly Pick<StoredWebhook, 'status' | 'failure_streak'>[]): WebhookStateCounts {
  const counts: WebhookStateCounts = { active: 0, failing: 0, disabled: 0 };
  for (const webhook of webhooks) counts[webhookState(webhook)]++;
  return counts;
}
