import { z } from 'zod';
import { currency, dateTime, id, nonNegativeAmount, record } from '../fields.js';

export const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'refunded', 'partially_refunded'] as const;
export const PAYMENT_METHODS = ['sepa_credit_transfer', 'sepa_direct_debit', 'card', 'eps', 'cash'] as const;

export const paymentFailureSchema = record({ code: z.string().min(1), message: z.string() });

/** A payment, usually against an invoice; `amount` in minor units. */
export const paymentSchema = record({
  id,
  invoice_id: id.nullable(),
  customer_id: id,
  amount: nonNegativeAmount,
  currency,
  status: z.enum(PAYMENT_STATUSES),
  method: z.enum(PAYMENT_METHODS),
  /** The remittance reference (Verwendungszweck). */
  reference: z.string().nullable(),
  paid_at: dateTime.nullable(),
  refunded_amount: nonNegativeAmount,
  failure: paymentFailureSchema.nullable(),
  created_at: dateTime,
});
