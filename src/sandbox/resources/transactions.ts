import { z } from 'zod';
import { currency } from '../../events/fields.js';
import { PAYMENT_METHODS } from '../../events/objects/payment.js';
import { isoNow, type SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { listParameters, page } from '../http/pagination.js';
import { ok } from '../http/response.js';
import type { Route } from '../http/router.js';
import { parseInput } from '../http/validate.js';
import type { SandboxObjects } from '../objects.js';
import { inStatus, settleInvoice } from './invoices.js';

type Transaction = SandboxObjects['transaction'];

const amountInput = z.int({ error: 'must be an integer number of cents' }).positive({ error: 'must be a positive number of cents' });
const createTransaction = z.strictObject({
  invoice_id: z.string().optional(),
  customer_id: z.string().optional(),
  amount: amountInput,
  currency,
  method: z.enum(PAYMENT_METHODS, { error: `must be one of ${PAYMENT_METHODS.join(', ')}` }).optional(),
  reference: z.string().max(140).optional(),
  /** `pending`: a payment under way (a direct debit), settled later by the sandbox helpers. */
  status: z.enum(['succeeded', 'pending'], { error: 'must be succeeded or pending' }).optional(),
});
const reverseTransaction = z.strictObject({ amount: amountInput.optional() });
const failTransaction = z.strictObject({ code: z.string().min(1).max(100).optional(), message: z.string().max(500).optional() });

const SORTABLE = ['created_at', 'amount'] as const;

/**
 * `/v1/transactions`: a payment (payment.received, and invoice.paid when it settles an invoice),
 * its reversal (payment.refunded); the sandbox helpers settle a pending one (payment.received)
 * or fail it (payment.failed).
 */
export function transactionRoutes(context: SandboxContext): Route[] {
  const { objects, emitter } = context;
  const pending = (id: string): Transaction => {
    const transaction = objects.get('transaction', id);
    if (transaction.status !== 'pending') throw SandboxError.validation('status', `the transaction is ${transaction.status}; only a pending one can be settled or fail`);
    return transaction;
  };
  return [
    {
      method: 'GET',
      path: '/v1/transactions',
      handler: ({ query }) => {
        const min = amountFilter(query, 'min_amount');
        const max = amountFilter(query, 'max_amount');
        const transactions = objects.all('transaction').filter((t) => (min === null || t.amount >= min) && (max === null || t.amount <= max));
        return page(transactions, listParameters(query, SORTABLE));
      },
    },
    { method: 'GET', path: '/v1/transactions/:id', handler: ({ params }) => ok(objects.get('transaction', params.id!)) },
    {
      method: 'POST',
      path: '/v1/transactions',
      handler: async ({ body }) => {
        const input = parseInput(createTransaction, body);
        const transaction = objects.insert('transaction', newTransaction(context, input));
        if (transaction.status === 'succeeded') await received(context, transaction);
        return ok(objects.get('transaction', transaction.id), 201);
      },
    },
    {
      method: 'POST',
      path: '/v1/transactions/:id/reverse',
      handler: async ({ params, body }) => {
        const transaction = objects.get('transaction', params.id!);
        if (transaction.status !== 'succeeded' && transaction.status !== 'partially_refunded') {
          throw SandboxError.validation('status', `the transaction is ${transaction.status}; only a succeeded one can be reversed`);
        }
        const left = transaction.amount - transaction.refunded_amount;
        const amount = parseInput(reverseTransaction, body).amount ?? left;
        if (amount > left) throw SandboxError.validation('amount', `must be at most ${left}, what the transaction still holds`);
        const refundedAmount = transaction.refunded_amount + amount;
        const status = refundedAmount === transaction.amount ? 'refunded' : 'partially_refunded';
        const reversed = objects.save('transaction', { ...transaction, status, refunded_amount: refundedAmount });
        await emitter.emit('payment.refunded', { ...reversed, status, refunded_amount: refundedAmount }, { status: transaction.status, refunded_amount: transaction.refunded_amount });
        return ok(reversed);
      },
    },
    {
      method: 'POST',
      path: '/v1/sandbox/transactions/:id/succeed',
      handler: async ({ params }) => {
        const transaction = objects.save('transaction', { ...pending(params.id!), status: 'succeeded', paid_at: isoNow(context) });
        await received(context, transaction);
        return ok(objects.get('transaction', transaction.id));
      },
    },
    {
      method: 'POST',
      path: '/v1/sandbox/transactions/:id/fail',
      handler: async ({ params, body }) => {
        const input = parseInput(failTransaction, body);
        const failure = { code: input.code ?? 'insufficient_funds', message: input.message ?? 'Die Lastschrift wurde mangels Deckung zurückgegeben' };
        const failed = objects.save('transaction', { ...pending(params.id!), status: 'failed', failure });
        await emitter.emit('payment.failed', { ...failed, status: 'failed', failure }, { status: 'pending' });
        return ok(failed);
      },
    },
  ];
}

function newTransaction(context: SandboxContext, input: z.output<typeof createTransaction>): Transaction {
  const { objects } = context;
  if (input.invoice_id === undefined && input.customer_id === undefined) throw SandboxError.validation('customer_id', 'is required when no invoice_id is given');
  const invoice = input.invoice_id === undefined ? null : inStatus(objects.reference('invoice', input.invoice_id, 'invoice_id'), ['sent', 'overdue'], 'paid');
  if (invoice !== null && input.currency !== invoice.currency) throw SandboxError.validation('currency', `must be ${invoice.currency}, the invoice's currency`);
  if (invoice !== null && input.customer_id !== undefined && input.customer_id !== invoice.customer_id) {
    throw SandboxError.validation('customer_id', "must be the invoice's customer");
  }
  const customerId = invoice?.customer_id ?? objects.reference('customer', input.customer_id, 'customer_id').id;
  const succeeded = (input.status ?? 'succeeded') === 'succeeded';
  return {
    id: context.ids.next('txn'),
    invoice_id: invoice?.id ?? null,
    customer_id: customerId,
    amount: input.amount,
    currency: input.currency,
    status: succeeded ? 'succeeded' : 'pending',
    method: input.method ?? (succeeded ? 'sepa_credit_transfer' : 'sepa_direct_debit'),
    reference: input.reference ?? invoice?.number ?? null,
    paid_at: succeeded ? isoNow(context) : null,
    refunded_amount: 0,
    failure: null,
    created_at: isoNow(context),
  };
}

/** payment.received, then the invoice it pays (invoice.paid once it is covered). */
async function received(context: SandboxContext, transaction: Transaction): Promise<void> {
  await context.emitter.emit('payment.received', { ...transaction, status: 'succeeded', paid_at: transaction.paid_at! });
  if (transaction.invoice_id !== null) await settleInvoice(context, transaction.invoice_id);
}

function amountFilter(query: URLSearchParams, name: string): number | null {
  const text = query.get(name);
  if (text === null) return null;
  if (!/^\d+$/.test(text)) throw SandboxError.validation(name, 'must be a whole amount in minor units', { malformed: true });
  return Number(text);
}
