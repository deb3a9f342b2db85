import type { z } from 'zod';
import type { customerSchema } from './objects/customer.js';
import type { invoiceSchema } from './objects/invoice.js';
import type { paymentSchema } from './objects/payment.js';
import type { subscriptionSchema } from './objects/subscription.js';
import type { uvaSchema } from './objects/uva.js';

/**
 * Realistic objects of an Austrian small business, the base of every sample event. Each event
 * type in the catalog changes what its transition changes (status, timestamps).
 */
export const SAMPLE_BUSINESS_ID = 'biz_4mVt9QeZxK2hRw7L';

export const SAMPLE_CUSTOMER: z.output<typeof customerSchema> = {
  id: 'cus_8XyQ2mLpRt4vNb6K',
  type: 'business',
  name: 'Bäckerei Huber GmbH',
  email: 'buchhaltung@baeckerei-huber.at',
  uid_number: 'ATU12345675',
  address: { street: 'Mariahilfer Straße 47', postal_code: '1060', city: 'Wien', country: 'AT' },
  status: 'active',
  archived_at: null,
  created_at: '2026-03-02T08:15:00.000Z',
};

export const SAMPLE_INVOICE: z.output<typeof invoiceSchema> = {
  id: 'inv_3Fk9TqWc5HzL1mPa',
  number: 'RE-2026-0042',
  customer_id: SAMPLE_CUSTOMER.id,
  status: 'draft',
  currency: 'EUR',
  amount: 16950,
  net_amount: 14500,
  vat_amount: 2450,
  lines: [
    {
      description: 'Laufende Buchhaltung Oktober 2026',
      quantity: 1,
      unit_amount: 10000,
      vat_rate: 20,
      net_amount: 10000,
      vat_amount: 2000,
    },
    {
      description: 'Fachbuch „Bilanzierung nach UGB“',
      quantity: 1,
      unit_amount: 4500,
      vat_rate: 10,
      net_amount: 4500,
      vat_amount: 450,
    },
  ],
  issue_date: '2026-11-02',
  due_date: '2026-11-16',
  reverse_charge: false,
  sent_at: null,
  paid_at: null,
  cancelled_at: null,
  created_at: '2026-11-02T09:30:00.000Z',
};

export const SAMPLE_PAYMENT: z.output<typeof paymentSchema> = {
  id: 'pay_7Rb2Kx9WqN4tLm3S',
  invoice_id: SAMPLE_INVOICE.id,
  customer_id: SAMPLE_CUSTOMER.id,
  amount: SAMPLE_INVOICE.amount,
  currency: 'EUR',
  status: 'pending',
  method: 'sepa_credit_transfer',
  reference: SAMPLE_INVOICE.number,
  paid_at: null,
  refunded_amount: 0,
  failure: null,
  created_at: '2026-11-12T07:45:00.000Z',
};

export const SAMPLE_SUBSCRIPTION: z.output<typeof subscriptionSchema> = {
  id: 'sub_5Hn8Vc2QxT7kLp9W',
  customer_id: SAMPLE_CUSTOMER.id,
  plan: 'pro',
  status: 'active',
  interval: 'month',
  amount: 4900,
  currency: 'EUR',
  current_period_start: '2026-11-01T00:00:00.000Z',
  current_period_end: '2026-12-01T00:00:00.000Z',
  cancel_at_period_end: false,
  cancelled_at: null,
  created_at: '2026-03-01T10:00:00.000Z',
};

export const SAMPLE_UVA: z.output<typeof uvaSchema> = {
  id: 'uva_2Wq6Lm9TzR3xKc8N',
  period: '2026-10',
  status: 'draft',
  uid_number: 'ATU68254916',
  tax_number: '12-345/6789',
  amount: 630000,
  currency: 'EUR',
  figures: { '000': 5000000, '022': 4500000, '029': 500000, '060': 320000 },
  due_date: '2026-12-15',
  submitted_at: null,
  finanzonline_reference: null,
  created_at: '2026-11-10T16:20:00.000Z',
};
