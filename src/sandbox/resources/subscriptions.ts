import { z } from 'zod';
import { BILLING_INTERVALS, SUBSCRIPTION_PLANS } from '../../events/objects/subscription.js';
import { isoNow, type SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { listParameters, page } from '../http/pagination.js';
import { ok } from '../http/response.js';
import type { Route } from '../http/router.js';
import { parseInput } from '../http/validate.js';
import type { SandboxObjects } from '../objects.js';
import { createObject, updateObject } from './changes.js';

type Subscription = SandboxObjects['subscription'];
type Plan = Subscription['plan'];
type Interval = Subscription['interval'];

/** Monthly prices in cents; a yearly subscription pays ten months. */
export const PLAN_PRICES: Record<Plan, number> = { free: 0, starter: 1900, pro: 4900, business: 9900, enterprise: 29900 };
const MONTHS_PER_YEAR_PAID = 10;

const plan = z.enum(SUBSCRIPTION_PLANS, { error: `must be one of ${SUBSCRIPTION_PLANS.join(', ')}` });
const interval = z.enum(BILLING_INTERVALS, { error: `must be one of ${BILLING_INTERVALS.join(', ')}` });
const createSubscription = z.strictObject({ customer_id: z.string({ error: 'must be the id of a customer' }), plan, interval: interval.optional() });
const updateSubscription = z.strictObject({ plan: plan.optional(), interval: interval.optional() });

/**
 * Sandbox helpers (the document lists no subscription endpoints): take (subscription.created),
 * change plan (subscription.updated), cancel by DELETE (subscription.cancelled); renewals
 * (subscription.renewed) come from the clock.
 */
export function subscriptionRoutes(context: SandboxContext): Route[] {
  const { objects, emitter } = context;
  const active = (id: string): Subscription => {
    const subscription = objects.get('subscription', id);
    if (subscription.status === 'cancelled') throw SandboxError.validation('status', 'the subscription is cancelled');
    return subscription;
  };
  return [
    { method: 'GET', path: '/v1/sandbox/subscriptions', handler: ({ query }) => page(objects.all('subscription'), listParameters(query, ['created_at', 'amount'])) },
    { method: 'GET', path: '/v1/sandbox/subscriptions/:id', handler: ({ params }) => ok(objects.get('subscription', params.id!)) },
    {
      method: 'POST',
      path: '/v1/sandbox/subscriptions',
      handler: ({ body }) => {
        const input = parseInput(createSubscription, body);
        const customer = objects.reference('customer', input.customer_id, 'customer_id');
        const now = context.clock.now();
        const every = input.interval ?? 'month';
        const subscription: Subscription = {
          id: context.ids.next('sub'),
          customer_id: customer.id,
          plan: input.plan,
          status: 'active',
          interval: every,
          amount: priceOf(input.plan, every),
          currency: 'EUR',
          current_period_start: new Date(now).toISOString(),
          current_period_end: new Date(periodEnd(now, every)).toISOString(),
          cancel_at_period_end: false,
          cancelled_at: null,
          created_at: isoNow(context),
        };
        return createObject(context, 'subscription', 'subscription.created', subscription);
      },
    },
    {
      method: 'PATCH',
      path: '/v1/sandbox/subscriptions/:id',
      handler: ({ params, body }) => {
        const subscription = active(params.id!);
        const input = parseInput(updateSubscription, body);
        const chosenPlan = input.plan ?? subscription.plan;
        const every = input.interval ?? subscription.interval;
        return updateObject(context, 'subscription', 'subscription.updated', subscription, { ...subscription, plan: chosenPlan, interval: every, amount: priceOf(chosenPlan, every) });
      },
    },
    {
      method: 'DELETE',
      path: '/v1/sandbox/subscriptions/:id',
      handler: async ({ params }) => {
        const subscription = active(params.id!);
        const cancelledAt = isoNow(context);
        const cancelled = objects.save('subscription', { ...subscription, status: 'cancelled', cancelled_at: cancelledAt });
        await emitter.emit('subscription.cancelled', { ...cancelled, status: 'cancelled', cancelled_at: cancelledAt }, { status: subscription.status, cancelled_at: null });
        return ok(cancelled);
      },
    },
  ];
}

function priceOf(chosen: Plan, every: Interval): number {
  return PLAN_PRICES[chosen] * (every === 'year' ? MONTHS_PER_YEAR_PAID : 1);
}

/** The same day of the next month (or year), UTC. */
function periodEnd(start: number, every: Interval): number {
  const end = new Date(start);
  if (every === 'year') end.setUTCFullYear(end.getUTCFullYear() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1);
  return end.getTime();
}

/** When an active subscription renews: the end of its period. */
export function renewalAt(subscription: Subscription): number | null {
  return subscription.status === 'active' ? Date.parse(subscription.current_period_end) : null;
}

export async function renew(context: SandboxContext, subscription: Subscription): Promise<void> {
  const start = Date.parse(subscription.current_period_end);
  const renewed = context.objects.save('subscription', {
    ...subscription,
    current_period_start: subscription.current_period_end,
    current_period_end: new Date(periodEnd(start, subscription.interval)).toISOString(),
  });
  await context.emitter.emit('subscription.renewed', { ...renewed, status: 'active' }, {
    current_period_start: subscription.current_period_start,
    current_period_end: subscription.current_period_end,
  });
}
