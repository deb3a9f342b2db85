import { z } from 'zod';
import { isEventPattern, type EventPattern } from '../../events/catalog.js';
import type { Delivery, DeliveryAttempt } from '../../dispatcher/records.js';
import type { SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { faultsInput, type FaultLog } from '../faults.js';
import { withForward, type ForwardLog } from '../forwards.js';
import { listParameters, page } from '../http/pagination.js';
import { noContent, ok } from '../http/response.js';
import type { Route } from '../http/router.js';
import { parseInput } from '../http/validate.js';
import type { WebhookEntry } from '../webhook-registry.js';

const events = z
  .array(
    z.string({ error: 'must be an event type' }).refine(isEventPattern, { error: 'must be an event type such as invoice.paid, a group such as invoice.* or *' }),
    { error: 'must be an array of event types' },
  )
  .min(1, { error: 'must name at least one event type' })
  .transform((list) => list as EventPattern[]);
const createWebhook = z.strictObject({
  url: z.string({ error: 'must be an https URL' }),
  events,
  scheme: z.enum(['svc', 'standard-webhooks', 'both'], { error: 'must be svc, standard-webhooks or both' }).optional(),
  algorithm: z.enum(['hmac-sha256', 'ed25519'], { error: 'must be hmac-sha256 or ed25519' }).optional(),
});
const rotateSecret = z.strictObject({ grace_ms: z.number({ error: 'must be whole milliseconds' }).optional() });
const updateWebhook = z
  .strictObject({
    events: events.optional(),
    status: z.enum(['active', 'disabled'], { error: 'must be active or disabled' }).optional(),
    replay_skipped: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .superRefine((input, context) => {
    if (input.events === undefined && input.status === undefined) context.addIssue({ code: 'custom', path: [], message: 'the body must give events, status or both' });
    if (input.replay_skipped !== undefined && input.status !== 'active') {
      context.addIssue({ code: 'custom', path: ['replay_skipped'], message: 'goes with "status": "active": it sends the skipped events of a webhook being enabled' });
    }
  });

/**
 * The document's webhook management table, exactly, plus the sandbox's look into deliveries and
 * faults; `POST` also takes `scheme` and `algorithm`, `rotate-secret` a `grace_ms`; `PATCH` also takes `status` (`active` enables a disabled webhook, with
 * `replay_skipped: true` its skipped events too; `disabled` disables it).
 */
export function webhookRoutes(context: SandboxContext, faultLog: FaultLog, forwardLog: ForwardLog): Route[] {
  const { webhooks, dispatcher } = context;
  const deliveryOf = async (webhook: WebhookEntry, deliveryId: string) => {
    const detail = await dispatcher.deliveries.get(deliveryId).catch(() => null);
    // Another account's delivery is FORBIDDEN; one of this account's other webhooks is not found under this one.
    const owner = detail === null ? undefined : context.registry.anyByDispatcherId(detail.webhook_id)?.businessId;
    if (owner !== undefined && owner !== webhook.businessId) throw SandboxError.forbidden('delivery', deliveryId);
    if (detail === null || detail.webhook_id !== webhook.dispatcherId) throw SandboxError.notFound('delivery', deliveryId);
    return detail;
  };
  const deliveryView = (webhook: WebhookEntry, delivery: Delivery) => ({
    id: delivery.id,
    webhook_id: webhook.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    status: delivery.status,
    attempt_count: delivery.attempt_count,
    next_attempt_at: delivery.next_attempt_at,
    test: delivery.test,
    created_at: delivery.created_at,
    updated_at: delivery.updated_at,
    faults: faultLog.of(webhook.id, delivery.event_id),
  });
  const attemptView = (webhook: WebhookEntry, dispatcherAttempt: DeliveryAttempt, faults: ReturnType<FaultLog['of']>) => {
    const attempt = withForward(dispatcherAttempt, forwardLog.of(webhook.id, dispatcherAttempt.event_id).get(dispatcherAttempt.attempt_number));
    return {
      id: attempt.id,
      attempt_number: attempt.attempt_number,
      attempted_at: attempt.attempted_at,
      url: webhook.url,
      response_status: attempt.response_status,
      response_time_ms: attempt.response_time_ms,
      receiver_ip: attempt.receiver_ip,
      response_body: attempt.response_body,
      error_kind: attempt.error_kind,
      error_message: attempt.error_message,
      manual: attempt.manual,
      faults: faults.filter((fault) => fault.attempt_number === attempt.attempt_number),
    };
  };
  return [
    { method: 'GET', path: '/v1/webhooks', handler: async ({ query }) => page(await webhooks.list(), listParameters(query, ['created_at'])) },
    {
      method: 'POST',
      path: '/v1/webhooks',
      handler: async ({ body }) => {
        const input = parseInput(createWebhook, body);
        return ok(await webhooks.create(input.url, input.events, { scheme: input.scheme, algorithm: input.algorithm }), 201);
      },
    },
    { method: 'GET', path: '/v1/webhooks/:id', handler: async ({ params }) => ok(await webhooks.get(params.id!)) },
    {
      method: 'PATCH',
      path: '/v1/webhooks/:id',
      handler: async ({ params, body }) => {
        const change = parseInput(updateWebhook, body);
        const updated = await webhooks.update(params.id!, change);
        // Enabled: its pending deliveries and the replayed ones are due now.
        if (change.status === 'active') context.pump.kick();
        return ok(updated);
      },
    },
    {
      method: 'DELETE',
      path: '/v1/webhooks/:id',
      handler: async ({ params }) => {
        await webhooks.delete(params.id!);
        return noContent();
      },
    },
    {
      method: 'POST',
      path: '/v1/webhooks/:id/rotate-secret',
      handler: async ({ params, body }) => ok(await webhooks.rotateSecret(params.id!, parseInput(rotateSecret, body).grace_ms)),
    },
    {
      method: 'GET',
      path: '/v1/webhooks/:id/deliveries',
      handler: async ({ params, query }) => {
        const webhook = webhooks.entry(params.id!);
        const status = query.get('status');
        const deliveries = await dispatcher.deliveries.list({ webhook_id: webhook.dispatcherId, limit: 1000 });
        const selected = deliveries.filter((delivery) => status === null || delivery.status === status).reverse();
        return page(selected.map((delivery) => deliveryView(webhook, delivery)), listParameters(query, ['created_at']));
      },
    },
    {
      method: 'GET',
      path: '/v1/webhooks/:id/deliveries/:delivery',
      handler: async ({ params }) => {
        const webhook = webhooks.entry(params.id!);
        const detail = await deliveryOf(webhook, params.delivery!);
        const faults = faultLog.of(webhook.id, detail.event_id);
        return ok({ ...deliveryView(webhook, detail), attempts: detail.attempts.map((attempt) => attemptView(webhook, attempt, faults)) });
      },
    },
    {
      method: 'POST',
      path: '/v1/webhooks/:id/deliveries/:delivery/retry',
      webhookRetry: true,
      handler: async ({ params }) => {
        const webhook = webhooks.entry(params.id!);
        const detail = await deliveryOf(webhook, params.delivery!);
        const { delivery, attempt } = await dispatcher.deliveries.retry(detail.id);
        const faults = faultLog.of(webhook.id, delivery.event_id);
        return ok({ delivery: deliveryView(webhook, delivery), attempt: attemptView(webhook, attempt, faults) });
      },
    },
    {
      method: 'POST',
      path: '/v1/webhooks/:id/test',
      handler: async ({ params }) => {
        const webhook = webhooks.entry(params.id!);
        const detail = await dispatcher.sendTest(webhook.dispatcherId);
        const faults = faultLog.of(webhook.id, detail.event_id);
        return ok({ ...deliveryView(webhook, detail), attempts: detail.attempts.map((attempt) => attemptView(webhook, attempt, faults)) });
      },
    },
    { method: 'GET', path: '/v1/sandbox/webhooks/:id/faults', handler: ({ params }) => ok(webhooks.entry(params.id!).faults) },
    { method: 'PUT', path: '/v1/sandbox/webhooks/:id/faults', handler: ({ params, body }) => ok(webhooks.setFaults(params.id!, parseInput(faultsInput, body))) },
    { method: 'GET', path: '/v1/sandbox/faults', handler: () => ok(webhooks.faultsView()) },
    { method: 'DELETE', path: '/v1/sandbox/faults', handler: () => ok(webhooks.clearFaults(faultsInput.parse({}))) },
  ];
}
