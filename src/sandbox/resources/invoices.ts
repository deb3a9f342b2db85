import { z } from 'zod';
import { currency, date } from '../../events/fields.js';
import { INVOICE_STATUSES } from '../../events/objects/invoice.js';
import { dateAfter, isoNow, type SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { listParameters, page } from '../http/pagination.js';
import { ok, type SandboxResponse } from '../http/response.js';
import type { Route } from '../http/router.js';
import { parseInput } from '../http/validate.js';
import type { SandboxObjects } from '../objects.js';
import { createObject } from './changes.js';

type Invoice = SandboxObjects['invoice'];

/** Austrian VAT rates: standard, the two reduced ones, exempt. */
export const VAT_RATES = [20, 13, 10, 0] as const;
/** Days from issue to due date when none is given (a common Austrian payment term). */
export const DEFAULT_PAYMENT_TERM_DAYS = 14;

const positiveAmount = z.int({ error: 'must be an integer number of cents' }).positive({ error: 'must be a positive number of cents' });
const createInvoice = z.strictObject({
  customer_id: z.string({ error: 'must be the id of a customer' }),
  amount: positiveAmount,
  currency,
  vat_rate: z.union(VAT_RATES.map((rate) => z.literal(rate)), { error: `must be one of ${VAT_RATES.join(', ')}` }).optional(),
  description: z.string().min(1).max(500).optional(),
  due_date: date.optional(),
  reverse_charge: z.boolean().optional(),
});

const SORTABLE = ['created_at', 'amount', 'due_date', 'number', 'status'] as const;

/** `/v1/invoices`: create (invoice.created, a draft), send (invoice.sent), cancel by DELETE (invoice.cancelled). */
export function invoiceRoutes(context: SandboxContext): Route[] {
  const { objects, emitter } = context;
  return [
    { method: 'GET', path: '/v1/invoices', handler: ({ query }) => listInvoices(context, query, null) },
    { method: 'GET', path: '/v1/invoices/:id', handler: ({ params }) => ok(objects.get('invoice', params.id!)) },
    {
      method: 'POST',
      path: '/v1/invoices',
      handler: ({ body }) => {
        return createObject(context, 'invoice', 'invoice.created', newInvoice(context, parseInput(createInvoice, body)));
      },
    },
    {
      method: 'POST',
      path: '/v1/invoices/:id/send',
      handler: async ({ params }) => {
        const invoice = inStatus(objects.get('invoice', params.id!), ['draft'], 'sent');
        const sent = objects.save('invoice', { ...invoice, status: 'sent', sent_at: isoNow(context) });
        await emitter.emit('invoice.sent', { ...sent, status: 'sent', sent_at: sent.sent_at! }, { status: 'draft', sent_at: null });
        return ok(sent);
      },
    },
    {
      method: 'DELETE',
      path: '/v1/invoices/:id',
      handler: async ({ params }) => {
        const invoice = inStatus(objects.get('invoice', params.id!), ['draft', 'sent', 'overdue'], 'cancelled');
        const cancelledAt = isoNow(context);
        const cancelled = objects.save('invoice', { ...invoice, status: 'cancelled', cancelled_at: cancelledAt });
        await emitter.emit('invoice.cancelled', { ...cancelled, status: 'cancelled', cancelled_at: cancelledAt }, { status: invoice.status, cancelled_at: null });
        return ok(cancelled);
      },
    },
  ];
}

/** GET /v1/invoices (and a customer's): filters status and from_date (issue date on or after). */
export function listInvoices(context: SandboxContext, query: URLSearchParams, customerId: string | null): SandboxResponse {
  const status = query.get('status');
  if (status !== null && !(INVOICE_STATUSES as readonly string[]).includes(status)) {
    throw SandboxError.validation('status', `must be one of ${INVOICE_STATUSES.join(', ')}`, { malformed: true });
  }
  const fromDate = query.get('from_date');
  if (fromDate !== null && !date.safeParse(fromDate).success) throw SandboxError.validation('from_date', 'must be a date YYYY-MM-DD', { malformed: true });
  const invoices = context.objects
    .all('invoice')
    .filter((invoice) => customerId === null || invoice.customer_id === customerId)
    .filter((invoice) => status === null || invoice.status === status)
    .filter((invoice) => fromDate === null || invoice.issue_date >= fromDate);
  return page(invoices, listParameters(query, SORTABLE));
}

function newInvoice(context: SandboxContext, input: z.output<typeof createInvoice>): Invoice {
  const customer = context.objects.reference('customer', input.customer_id, 'customer_id');
  if (customer.status === 'archived') throw SandboxError.validation('customer_id', 'the customer is archived');
  const now = context.clock.now();
  const reverseCharge = input.reverse_charge ?? false;
  const vatRate = reverseCharge ? 0 : (input.vat_rate ?? 20);
  const net = Math.round((input.amount * 100) / (100 + vatRate));
  const line = {
    description: input.description ?? 'Leistungen laut Vereinbarung',
    quantity: 1,
    unit_amount: net,
    vat_rate: vatRate,
    net_amount: net,
    vat_amount: input.amount - net,
  };
  const issueDate = dateAfter(now, 0);
  return {
    id: context.ids.next('inv'),
    number: `RE-${issueDate.slice(0, 4)}-${String(context.ids.sequence('invoice_number')).padStart(4, '0')}`,
    customer_id: customer.id,
    status: 'draft',
    currency: input.currency,
    amount: input.amount,
    net_amount: net,
    vat_amount: input.amount - net,
    lines: [line],
    issue_date: issueDate,
    due_date: input.due_date ?? dateAfter(now, DEFAULT_PAYMENT_TERM_DAYS),
    reverse_charge: reverseCharge,
    sent_at: null,
    paid_at: null,
    cancelled_at: null,
    created_at: isoNow(context),
  };
}

/** @throws SandboxError VALIDATION_ERROR (field `status`) when the invoice cannot make this transition */
export function inStatus(invoice: Invoice, allowed: readonly Invoice['status'][], to: string): Invoice {
  if (allowed.includes(invoice.status)) return invoice;
  throw SandboxError.validation('status', `the invoice is ${invoice.status}; only a ${allowed.join(', ')} invoice can become ${to}`);
}

/**
 * A payment came in for the invoice: when what its succeeded payments keep (net of refunds)
 * covers the amount, it becomes `paid` and `invoice.paid` carries the previous status and
 * `paid_at: null`, the document's one shown transition.
 */
export async function settleInvoice(context: SandboxContext, invoiceId: string): Promise<void> {
  const invoice = context.objects.get('invoice', invoiceId);
  if (invoice.status !== 'sent' && invoice.status !== 'overdue') return;
  const received = context.objects
    .all('transaction')
    .filter((payment) => payment.invoice_id === invoice.id && payment.status !== 'pending' && payment.status !== 'failed')
    .reduce((sum, payment) => sum + payment.amount - payment.refunded_amount, 0);
  if (received < invoice.amount) return;
  const paidAt = isoNow(context);
  const paid = context.objects.save('invoice', { ...invoice, status: 'paid', paid_at: paidAt });
  await context.emitter.emit('invoice.paid', { ...paid, status: 'paid', paid_at: paidAt }, { status: invoice.status, paid_at: null });
}

/** Sent invoices whose due date has passed become `overdue` (invoice.overdue) at the start of the next day. */
export function overdueAt(invoice: Invoice): number | null {
  return invoice.status === 'sent' ? Date.parse(`${invoice.due_date}T00:00:00.000Z`) + 86_400_000 : null;
}

export async function markOverdue(context: SandboxContext, invoice: Invoice): Promise<void> {
  const overdue = context.objects.save('invoice', { ...invoice, status: 'overdue' });
  await context.emitter.emit('invoice.overdue', { ...overdue, status: 'overdue' }, { status: 'sent' });
}
