import { z } from 'zod';
import { amount, currency, date, dateTime, id, record, uidNumber } from '../fields.js';

export const UVA_STATUSES = ['draft', 'submitted', 'confirmed', 'rejected'] as const;

/**
 * An Umsatzsteuervoranmeldung (UVA, form U30): the Austrian advance VAT return, filed through
 * FinanzOnline for a month (`2026-10`) or a quarter (`2026-Q3`).
 */
export const uvaSchema = record({
  id,
  period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2]|Q[1-4])$/, 'must be YYYY-MM or YYYY-Qn'),
  status: z.enum(UVA_STATUSES),
  uid_number: uidNumber,
  /** Steuernummer: tax office number and taxpayer number, 12-345/6789. */
  tax_number: z.string().regex(/^\d{2}-?\d{3}\/\d{4}$/, 'must look like 12-345/6789'),
  /** Payable VAT (Zahllast) in minor units; negative for a credit (Gutschrift). */
  amount,
  currency,
  /** The form's figures by Kennzahl (KZ 000 revenue, KZ 022 base at 20 %, KZ 060 input VAT …). */
  figures: z.record(z.string().regex(/^\d{3}$/, 'a Kennzahl has three digits'), amount),
  due_date: date,
  submitted_at: dateTime.nullable(),
  finanzonline_reference: z.string().nullable(),
  created_at: dateTime,
});
