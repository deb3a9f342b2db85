import { z } from 'zod';
import { documented } from '../docs.js';
import { amount, currency, date, dateTime, id, record, uidNumber } from '../fields.js';

export const UVA_STATUSES = ['draft', 'submitted', 'confirmed', 'rejected'] as const;

export const uvaSchema = documented(
  record({
    id: documented(id, 'The VAT return id (uva_…).'),
    period: documented(
      z.string().regex(/^\d{4}-(0[1-9]|1[0-2]|Q[1-4])$/, 'must be YYYY-MM or YYYY-Qn'),
      'The month (2026-10) or quarter (2026-Q3) the return is for.',
    ),
    status: documented(z.enum(UVA_STATUSES), 'draft, submitted, confirmed or rejected.'),
    uid_number: documented(uidNumber, "The business's own VAT id."),
    tax_number: documented(
      z.string().regex(/^\d{2}-?\d{3}\/\d{4}$/, 'must look like 12-345/6789'),
      'Steuernummer: tax office number and taxpayer number, 12-345/6789.',
    ),
    amount: documented(amount, 'Payable VAT (Zahllast) in minor units; negative for a credit (Gutschrift).'),
    currency,
    figures: documented(
      z.record(z.string().regex(/^\d{3}$/, 'a Kennzahl has three digits'), amount),
      "The form's figures by Kennzahl, in minor units (KZ 000 revenue, KZ 022 base at 20 %, KZ 060 input VAT …).",
    ),
    due_date: documented(date, 'When the payable VAT is due.'),
    submitted_at: documented(dateTime.nullable(), 'When it was submitted to FinanzOnline; null while a draft.'),
    finanzonline_reference: documented(z.string().nullable(), "FinanzOnline's reference of the submission; null before it."),
    created_at: documented(dateTime, 'When the return was created.'),
  }),
  'An Umsatzsteuervoranmeldung (UVA, form U30): the Austrian advance VAT return, filed through FinanzOnline for a month or a quarter.',
);
