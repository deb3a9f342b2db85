import { z } from 'zod';
import { amount, currency, date, dateTime, id, record, vatRate } from '../fields.js';

export const INVOICE_STATUSES = ['draft', 'sent', 'paid', 'overdue', 'cancelled'] as const;

export const invoiceLineSchema = record({
  description: z.string().min(1),
  quantity: z.number().positive(),
  /** Net price of one unit, minor units. */
  unit_amount: amount,
  vat_rate: vatRate,
  net_amount: amount,
  vat_amount: amount,
});

/** An invoice (Rechnung). `amount` is the gross total, `net_amount + vat_amount`. */
export const invoiceSchema = record({
  id,
  number: z.string().min(1),
  customer_id: id,
  status: z.enum(INVOICE_STATUSES),
  currency,
  amount,
  net_amount: amount,
  vat_amount: amount,
  lines: z.array(invoiceLineSchema),
  issue_date: date,
  due_date: date,
  /** Reverse charge (Übergang der Steuerschuld): no VAT charged, the customer accounts for it. */
  reverse_charge: z.boolean(),
  sent_at: dateTime.nullable(),
  paid_at: dateTime.nullable(),
  cancelled_at: dateTime.nullable(),
  created_at: dateTime,
});
