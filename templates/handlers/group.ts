import type { Webhooks } from 'acct-webhook';

/**
{{description}}
 *
 * Each handler gets the typed event — `event.data.object` has exactly the fields this event
 * guarantees — and a context whose `log` is bound to the event id, type and correlation id.
 * Replace the log lines with your own work. Keep that work safe to repeat: when a handler
 * throws, the receiver answers 500 and the platform delivers the event again.
 */
export function {{functionName}}(webhooks: Webhooks): void {
{{handlers}}
}
