import { z } from 'zod';
import { documented } from './docs.js';
import { amount, dateTime, record } from './fields.js';
import { customerSchema } from './objects/customer.js';
import { invoiceSchema } from './objects/invoice.js';
import { paymentFailureSchema, paymentSchema } from './objects/payment.js';
import { subscriptionSchema } from './objects/subscription.js';
import { uvaSchema } from './objects/uva.js';
import type { EventType } from './event-types.js';
import { SAMPLE_CUSTOMER, SAMPLE_INVOICE, SAMPLE_PAYMENT, SAMPLE_SUBSCRIPTION, SAMPLE_UVA } from './samples.js';

/**
 * The one source of truth for the 18 event types: their group (as in the platform's document),
 * when the platform emits them, the schema of `data.object`, and a realistic sample. Types,
 * parsing, docs, the CLI's `trigger` and the scaffolder all derive from this table.
 */
export const EVENT_GROUPS = {
  invoices: { title: 'Invoices', object: 'invoice', schema: invoiceSchema },
  customers: { title: 'Customers', object: 'customer', schema: customerSchema },
  payments: { title: 'Payments', object: 'payment', schema: paymentSchema },
  subscriptions: { title: 'Subscriptions', object: 'subscription', schema: subscriptionSchema },
  uva: { title: 'Tax office filing', object: 'uva', schema: uvaSchema },
} as const;

/** The five groups of the platform's document: `invoices`, `customers`, `payments`, `subscriptions`, `uva`. */
export type EventGroup = keyof typeof EVENT_GROUPS;

interface EventDefinition<G extends EventGroup, S extends z.ZodObject> {
  group: G;
  /** When the platform emits the event, as the API document says it. */
  emittedWhen: string;
  /** Schema of `data.object` for this type: the group's object, narrowed by the transition. */
  object: S;
  sample: z.output<S>;
  /** `data.previous_attributes` of the sample: earlier values of what changed. */
  previousAttributes?: Partial<z.output<(typeof EVENT_GROUPS)[G]['schema']>>;
  /**
   * Where in its object's life the event can happen: an event of a later stage never precedes
   * one of an earlier stage of the same object (`invoice.created` 0, `invoice.sent` 1,
   * `invoice.overdue` 2, `invoice.paid` and `invoice.cancelled` 3). The ordering guard uses it
   * to order two events of one object with the same `created`.
   */
  stage: number;
  /**
   * The event that brings its object into a receiver's view (its first event). The ordering
   * guard never skips it as stale: what it starts (booking, a welcome e-mail) is not carried by
   * the later events' snapshots.
   */
  creation?: true;
}

function define<G extends EventGroup, S extends z.ZodObject>(definition: EventDefinition<G, S>): EventDefinition<G, S> {
  return definition;
}

const invoiceWithStatus = <S extends (typeof invoiceSchema)['shape']['status']['options'][number]>(status: S) =>
  invoiceSchema.extend({ status: z.literal(status) });

const SENT_AT = '2026-11-02T09:31:12.000Z';
const PAID_AT = '2026-11-12T07:45:00.000Z';

export const EVENT_CATALOG = {
  'invoice.created': define({
    stage: 0,
    creation: true,
    group: 'invoices',
    emittedWhen: 'an invoice is created',
    object: invoiceSchema,
    sample: SAMPLE_INVOICE,
  }),
  'invoice.sent': define({
    stage: 1,
    group: 'invoices',
    emittedWhen: 'the e-mail goes to the customer',
    object: invoiceWithStatus('sent').extend({ sent_at: documented(dateTime, 'When the invoice went to the customer.') }),
    sample: { ...SAMPLE_INVOICE, status: 'sent', sent_at: SENT_AT },
    previousAttributes: { status: 'draft', sent_at: null },
  }),
  'invoice.paid': define({
    stage: 3,
    group: 'invoices',
    emittedWhen: 'payment is received',
    object: invoiceWithStatus('paid').extend({ paid_at: documented(dateTime, 'When it was paid in full.') }),
    sample: { ...SAMPLE_INVOICE, status: 'paid', sent_at: SENT_AT, paid_at: PAID_AT },
    previousAttributes: { status: 'sent', paid_at: null },
  }),
  'invoice.overdue': define({
    stage: 2,
    group: 'invoices',
    emittedWhen: 'the due date has passed',
    object: invoiceWithStatus('overdue'),
    sample: { ...SAMPLE_INVOICE, status: 'overdue', sent_at: SENT_AT },
    previousAttributes: { status: 'sent' },
  }),
  'invoice.cancelled': define({
    stage: 3,
    group: 'invoices',
    emittedWhen: 'an invoice is cancelled',
    object: invoiceWithStatus('cancelled').extend({ cancelled_at: documented(dateTime, 'When it was cancelled.') }),
    sample: { ...SAMPLE_INVOICE, status: 'cancelled', sent_at: SENT_AT, cancelled_at: '2026-11-05T14:02:40.000Z' },
    previousAttributes: { status: 'sent', cancelled_at: null },
  }),
  'customer.created': define({
    stage: 0,
    creation: true,
    group: 'customers',
    emittedWhen: 'a customer is created',
    object: customerSchema,
    sample: SAMPLE_CUSTOMER,
  }),
  'customer.updated': define({
    stage: 1,
    group: 'customers',
    emittedWhen: 'master data changes',
    object: customerSchema,
    sample: { ...SAMPLE_CUSTOMER, email: 'rechnung@baeckerei-huber.at' },
    previousAttributes: { email: SAMPLE_CUSTOMER.email },
  }),
  'customer.deleted': define({
    stage: 2,
    group: 'customers',
    emittedWhen: 'a customer is deleted (soft delete)',
    object: customerSchema.extend({ status: z.literal('archived'), archived_at: documented(dateTime, 'When the customer was deleted (archived).') }),
    sample: { ...SAMPLE_CUSTOMER, status: 'archived', archived_at: '2026-11-20T11:00:00.000Z' },
    previousAttributes: { status: 'active', archived_at: null },
  }),
  'payment.received': define({
    stage: 0,
    creation: true,
    group: 'payments',
    emittedWhen: 'a payment comes in',
    object: paymentSchema.extend({ status: z.literal('succeeded'), paid_at: documented(dateTime, 'When the money came in.') }),
    sample: { ...SAMPLE_PAYMENT, status: 'succeeded', paid_at: PAID_AT },
  }),
  'payment.failed': define({
    stage: 0,
    group: 'payments',
    emittedWhen: 'a payment fails',
    object: paymentSchema.extend({ status: z.literal('failed'), failure: documented(paymentFailureSchema, 'Why it failed.') }),
    sample: {
      ...SAMPLE_PAYMENT,
      method: 'sepa_direct_debit',
      status: 'failed',
      failure: { code: 'insufficient_funds', message: 'SEPA-Lastschrift mangels Deckung zurückgegeben' },
    },
    previousAttributes: { status: 'pending' },
  }),
  'payment.refunded': define({
    stage: 1,
    group: 'payments',
    emittedWhen: 'a payment is refunded',
    object: paymentSchema.extend({
      status: z.enum(['refunded', 'partially_refunded']),
      refunded_amount: documented(amount.positive(), 'How much of it was refunded, minor units: more than 0.'),
    }),
    sample: { ...SAMPLE_PAYMENT, status: 'refunded', paid_at: PAID_AT, refunded_amount: SAMPLE_PAYMENT.amount },
    previousAttributes: { status: 'succeeded', refunded_amount: 0 },
  }),
  'subscription.created': define({
    stage: 0,
    creation: true,
    group: 'subscriptions',
    emittedWhen: 'a subscription is taken',
    object: subscriptionSchema,
    sample: SAMPLE_SUBSCRIPTION,
  }),
  'subscription.updated': define({
    stage: 1,
    group: 'subscriptions',
    emittedWhen: 'upgrade or downgrade',
    object: subscriptionSchema,
    sample: { ...SAMPLE_SUBSCRIPTION, plan: 'business', amount: 9900 },
    previousAttributes: { plan: 'pro', amount: 4900 },
  }),
  'subscription.cancelled': define({
    stage: 2,
    group: 'subscriptions',
    emittedWhen: 'cancellation',
    object: subscriptionSchema.extend({ status: z.literal('cancelled'), cancelled_at: documented(dateTime, 'When it was cancelled.') }),
    sample: {
      ...SAMPLE_SUBSCRIPTION,
      status: 'cancelled',
      cancel_at_period_end: true,
      cancelled_at: '2026-11-18T13:37:00.000Z',
    },
    previousAttributes: { status: 'active', cancel_at_period_end: false, cancelled_at: null },
  }),
  'subscription.renewed': define({
    stage: 1,
    group: 'subscriptions',
    emittedWhen: 'automatic renewal',
    object: subscriptionSchema.extend({ status: z.literal('active') }),
    sample: {
      ...SAMPLE_SUBSCRIPTION,
      status: 'active',
      current_period_start: '2026-12-01T00:00:00.000Z',
      current_period_end: '2027-01-01T00:00:00.000Z',
    },
    previousAttributes: {
      current_period_start: SAMPLE_SUBSCRIPTION.current_period_start,
      current_period_end: SAMPLE_SUBSCRIPTION.current_period_end,
    },
  }),
  'uva.submitted': define({
    stage: 0,
    creation: true,
    group: 'uva',
    emittedWhen: 'the VAT return is submitted',
    object: uvaSchema.extend({ status: z.literal('submitted'), submitted_at: documented(dateTime, 'When it was submitted to FinanzOnline.') }),
    sample: {
      ...SAMPLE_UVA,
      status: 'submitted',
      submitted_at: '2026-11-14T18:05:00.000Z',
      finanzonline_reference: 'FON-2026-11-0047113',
    },
    previousAttributes: { status: 'draft', submitted_at: null },
  }),
  'uva.confirmed': define({
    stage: 1,
    group: 'uva',
    emittedWhen: 'the tax office confirms',
    object: uvaSchema.extend({ status: z.literal('confirmed'), confirmed_at: documented(dateTime, 'When the tax office confirmed it.') }),
    sample: {
      ...SAMPLE_UVA,
      status: 'confirmed',
      submitted_at: '2026-11-14T18:05:00.000Z',
      finanzonline_reference: 'FON-2026-11-0047113',
      confirmed_at: '2026-11-14T18:06:31.000Z',
    },
    previousAttributes: { status: 'submitted' },
  }),
  'uva.rejected': define({
    stage: 1,
    group: 'uva',
    emittedWhen: 'the tax office rejects',
    object: uvaSchema.extend({
      status: z.literal('rejected'),
      rejected_at: documented(dateTime, 'When the tax office rejected it.'),
      rejection: documented(
        record({ code: documented(z.string().min(1), "The tax office's reason, a code (KZ_SUM_MISMATCH)."), message: documented(z.string(), 'The reason in words.') }),
        'Why the tax office rejected it.',
      ),
    }),
    sample: {
      ...SAMPLE_UVA,
      status: 'rejected',
      submitted_at: '2026-11-14T18:05:00.000Z',
      finanzonline_reference: 'FON-2026-11-0047113',
      rejected_at: '2026-11-14T18:06:02.000Z',
      rejection: { code: 'KZ_SUM_MISMATCH', message: 'Summe der Kennzahlen 022 bis 029 weicht von KZ 000 ab' },
    },
    previousAttributes: { status: 'submitted' },
  }),
} as const;

// The types themselves, the patterns and their checks live in event-types.ts (no zod on the
// request path); the table above is their source through the generated validators.
export { EVENT_TYPES, expandEventPattern, isEventPattern, isEventType, type EventPattern, type EventPrefix, type EventType } from './event-types.js';

/** The catalog covers exactly the generated types, no more, no fewer (checked when compiling). */
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const CATALOG_MATCHES_TYPES: SameKeys<keyof typeof EVENT_CATALOG, EventType> = true;
