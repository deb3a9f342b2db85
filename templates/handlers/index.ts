import { Webhooks } from 'acct-webhook';
{{imports}}

/**
 * Every handler of this receiver, one file per group of events. Chosen when the project was
 * generated:
{{eventList}}
 *
 * Add more with `webhooks.on('customer.updated', (event, { log }) => …)`: event names are
 * checked by the compiler, and `invoice.*` takes a whole group. Events without a handler are
 * still verified, deduplicated and acknowledged.
 */
export function createWebhooks(): Webhooks {
  const webhooks = new Webhooks();
{{registrations}}
  return webhooks;
}
