import type { StoredWebhook, WebhookHealth } from './dispatch-store.js';

/** Every column of a registration, as StoredWebhook has it: the one list every backend's statements use. */
export const WEBHOOK_FIELDS = [
  'id',
  'url',
  'events',
  'headers',
  'status',
  'secret',
  'created_at',
  'updated_at',
  'failure_streak',
  'failing_since',
  'last_failure_at',
  'disabled_at',
  'disabled_reason',
  'rate_limit',
  'delivered_streak',
] as const satisfies readonly (keyof StoredWebhook)[];

/** The columns an attempt's record changes: the registration's health. */
export const HEALTH_FIELDS = ['status', 'failure_streak', 'failing_since', 'last_failure_at', 'disabled_at', 'disabled_reason', 'delivered_streak'] as const satisfies readonly (keyof WebhookHealth)[];

/** The fields kept as milliseconds (bigint on PostgreSQL). */
export const WEBHOOK_TIME_FIELDS = ['created_at', 'updated_at', 'failing_since', 'last_failure_at', 'disabled_at'] as const satisfies readonly (keyof StoredWebhook)[];

/** Whether two healths are the same (nothing to write). */
export function sameHealth(a: WebhookHealth, b: WebhookHealth): boolean {
  return HEALTH_FIELDS.every((key) => a[key] === b[key]);
}
