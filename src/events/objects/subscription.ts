import { z } from 'zod';
import { documented } from '../docs.js';
import { currency, dateTime, id, nonNegativeAmount, record } from '../fields.js';

/** The platform's plans, lower case (the plan table in the API document). */
export const SUBSCRIPTION_PLANS = ['free', 'starter', 'pro', 'business', 'enterprise'] as const;
export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'cancelled'] as const;
export const BILLING_INTERVALS = ['month', 'year'] as const;

export const subscriptionSchema = documented(
  record({
    id: documented(id, 'The subscription id (sub_…).'),
    customer_id: documented(id, 'The subscriber (cus_…).'),
    plan: documented(z.enum(SUBSCRIPTION_PLANS), 'The plan: free, starter, pro, business or enterprise.'),
    status: documented(z.enum(SUBSCRIPTION_STATUSES), 'trialing, active, past_due or cancelled.'),
    interval: documented(z.enum(BILLING_INTERVALS), 'Billed every month or every year.'),
    amount: documented(nonNegativeAmount, 'The price per interval, minor units.'),
    currency,
    current_period_start: documented(dateTime, 'Start of the period paid for.'),
    current_period_end: documented(dateTime, 'End of the period paid for; the next renewal.'),
    cancel_at_period_end: documented(z.boolean(), 'Whether it ends at the end of the current period instead of renewing.'),
    cancelled_at: documented(dateTime.nullable(), 'When it was cancelled; null unless cancelled.'),
    created_at: documented(dateTime, 'When the subscription was taken.'),
  }),
  "A subscription to one of the platform's plans.",
);
