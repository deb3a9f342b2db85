import { z } from 'zod';
import { currency, dateTime, id, nonNegativeAmount, record } from '../fields.js';

/** The platform's plans, lower case (the plan table in the API document). */
export const SUBSCRIPTION_PLANS = ['free', 'starter', 'pro', 'business', 'enterprise'] as const;
export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'cancelled'] as const;
export const BILLING_INTERVALS = ['month', 'year'] as const;

/** A subscription to one of the platform's plans. */
export const subscriptionSchema = record({
  id,
  customer_id: id,
  plan: z.enum(SUBSCRIPTION_PLANS),
  status: z.enum(SUBSCRIPTION_STATUSES),
  interval: z.enum(BILLING_INTERVALS),
  amount: nonNegativeAmount,
  currency,
  current_period_start: dateTime,
  current_period_end: dateTime,
  cancel_at_period_end: z.boolean(),
  cancelled_at: dateTime.nullable(),
  created_at: dateTime,
});
