import type { WebhookRegistration } from '../dispatcher/records.js';
import type { DisabledReason } from '../ports/dispatch-statuses.js';

/**
 * A webhook of the sandbox was disabled or made active again: by the disable rule (every attempt
 * failing for 72 h of sandbox time) or through `PATCH /v1/webhooks/{id}`. The sandbox's terminal
 * prints each one; `createSandbox({ onWebhookStatus })` receives them.
 */
export interface SandboxWebhookStatusChange {
  /** The sandbox's id, `wh_…`. */
  webhook_id: string;
  /** The receiver's URL, as registered. */
  url: string;
  status: 'active' | 'disabled';
  /** Sandbox time of the change (ISO 8601). */
  at: string;
  /** Why it was disabled: `failing` (the disable rule) or `manual` (a PATCH); `null` when it became active. */
  disabled_reason: DisabledReason | null;
  /** Events kept as skipped that were queued again when it became active; `null` without a replay. */
  replayed: number | null;
  /** What happened, in a sentence, with what to do next. */
  message: string;
}

/** What `GET /v1/webhooks/{id}` adds to a disabled webhook: when, why, and how to enable it again. */
export interface DisabledFields {
  /** Sandbox time (ISO 8601). */
  disabled_at: string;
  disabled_reason: DisabledReason;
  /** Why, in a sentence, with the call that enables it again. */
  disabled_message: string;
  /** Events that came while it was disabled, kept as skipped: `replay_skipped: true` sends them. */
  skipped_events: number;
}

/** How a webhook is made active again, sent its skipped events: the sandbox API call, exactly. */
export function enableCall(webhookId: string): string {
  return `PATCH /v1/webhooks/${webhookId} {"status": "active", "replay_skipped": true}`;
}

/** The disabled fields of a registration the Dispatcher has disabled; null while it is active. */
export function disabledFields(webhookId: string, registration: WebhookRegistration, disableAfterMs: number | null): DisabledFields | null {
  if (registration.status !== 'disabled' || registration.disabled_at === null) return null;
  const reason = registration.disabled_reason ?? 'manual';
  return {
    disabled_at: registration.disabled_at,
    disabled_reason: reason,
    disabled_message: disabledMessage(webhookId, reason, registration.failing_since, registration.disabled_at, disableAfterMs),
    skipped_events: registration.skipped_events,
  };
}

/** Why a webhook is disabled and how to enable it again, in a sentence. */
export function disabledMessage(webhookId: string, reason: DisabledReason, failingSince: string | null, disabledAt: string, disableAfterMs: number | null): string {
  const why =
    reason === 'failing'
      ? `every attempt failed for ${hours(disableAfterMs)} of sandbox time (from ${failingSince ?? '?'} to ${disabledAt}), the platform's disable rule`
      : `it was disabled through the API at ${disabledAt}`;
  return `Disabled: ${why}. New events are kept as skipped; enable it with ${enableCall(webhookId)}.`;
}

/** The sentence of a webhook that became active again. */
export function enabledMessage(replayed: number | null): string {
  return replayed === null ? 'Active again: new events are delivered.' : `Active again: ${replayed} skipped ${replayed === 1 ? 'event' : 'events'} queued for delivery.`;
}

function hours(ms: number | null): string {
  return ms === null ? 'a while' : `${Math.round((ms / 3_600_000) * 10) / 10} h`;
}
