import { z } from 'zod';
import { documented } from '../docs.js';
import { currency, dateTime, id, nonNegativeAmount, record } from '../fields.js';

export const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'refunded', 'partially_refunded'] as const;
export const PAYMENT_METHODS = ['sepa_credit_transfer', 'sepa_direct_debit', 'card', 'eps', 'cash'] as const;

export const paymentFailureSchema = documented(
  record({
    code: documented(z.string().min(1), 'Why it failed, a stable code (insufficient_funds, expired_card …).'),
    message: documented(z.string(), 'The reason in words, for people.'),
  }),
  { id: 'PaymentFailure', description: 'Why a payment failed.' },
);

export const paymentSchema = documented(
  record({
    id: documented(id, 'The payment id (pay_…).'),
    invoice_id: documented(id.nullable(), 'The invoice paid (inv_…); null for a payment not matched to an invoice.'),
    customer_id: documented(id, 'The customer who paid (cus_…).'),
    amount: documented(nonNegativeAmount, 'The amount paid, minor units.'),
    currency,
    status: documented(z.enum(PAYMENT_STATUSES), 'pending, succeeded, failed, refunded or partially_refunded.'),
    method: documented(z.enum(PAYMENT_METHODS), 'SEPA credit transfer, SEPA direct debit, card, eps (Austrian online banking) or cash.'),
    reference: documented(z.string().nullable(), 'The remittance reference (Verwendungszweck); null when none came with it.'),
    paid_at: documented(dateTime.nullable(), 'When the money came in; null until then.'),
    refunded_amount: documented(nonNegativeAmount, 'How much of it was refunded, minor units.'),
    failure: documented(paymentFailureSchema.nullable(), 'Why it failed; null unless it failed.'),
    created_at: documented(dateTime, 'When the payment was recorded.'),
  }),
  'A payment, usually against an invoice; amounts in minor units.',
);
