import { z } from 'zod';
import { documented } from '../docs.js';
import { amount, currency, date, dateTime, id, record, vatRate } from '../fields.js';

export const INVOICE_STATUSES = ['draft', 'sent', 'paid', 'overdue', 'cancelled'] as const;

export const invoiceLineSchema = documented(
  record({
    description: documented(z.string().min(1), 'What was sold.'),
    quantity: documented(z.number().positive(), 'How many units; more than 0, fractions allowed (1.5 hours).'),
    unit_amount: documented(amount, 'Net price of one unit, minor units.'),
    vat_rate: vatRate,
    net_amount: documented(amount, 'Net amount of the line, minor units.'),
    vat_amount: documented(amount, 'VAT of the line, minor units.'),
  }),
  { id: 'InvoiceLine', description: 'One line of an invoice.' },
);

export const invoiceSchema = documented(
  record({
    id: documented(id, 'The invoice id (inv_…).'),
    number: documented(z.string().min(1), 'The invoice number printed on the invoice (RE-2026-0042).'),
    customer_id: documented(id, 'The customer invoiced (cus_…).'),
    status: documented(z.enum(INVOICE_STATUSES), 'Where the invoice is in its life: draft, sent, paid, overdue or cancelled.'),
    currency,
    amount: documented(amount, 'Gross total, minor units: net_amount + vat_amount.'),
    net_amount: documented(amount, 'Net total, minor units.'),
    vat_amount: documented(amount, 'VAT total, minor units.'),
    lines: documented(z.array(invoiceLineSchema), 'The invoice lines.'),
    issue_date: documented(date, 'Invoice date (Rechnungsdatum).'),
    due_date: documented(date, 'Payment due date.'),
    reverse_charge: documented(
      z.boolean(),
      'Reverse charge (Übergang der Steuerschuld): no VAT charged, the customer accounts for it.',
    ),
    sent_at: documented(dateTime.nullable(), 'When the invoice went to the customer; null until then.'),
    paid_at: documented(dateTime.nullable(), 'When it was paid in full; null until then.'),
    cancelled_at: documented(dateTime.nullable(), 'When it was cancelled; null unless cancelled.'),
    created_at: documented(dateTime, 'When the invoice was created.'),
  }),
  'An invoice (Rechnung). amount is the gross total, net_amount + vat_amount.',
);
