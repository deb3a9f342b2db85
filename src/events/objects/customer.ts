import { z } from 'zod';
import { country, dateTime, id, record, uidNumber } from '../fields.js';

export const CUSTOMER_TYPES = ['business', 'private'] as const;
export const CUSTOMER_STATUSES = ['active', 'archived'] as const;

export const addressSchema = record({
  street: z.string().min(1),
  postal_code: z.string().min(1),
  city: z.string().min(1),
  country,
});

/** A customer. Deleting one archives it (soft delete): `status: 'archived'`, `archived_at` set. */
export const customerSchema = record({
  id,
  type: z.enum(CUSTOMER_TYPES),
  name: z.string().min(1),
  email: z.email().nullable(),
  /** VAT id of a business customer (ATU12345675); null for private customers. */
  uid_number: uidNumber.nullable(),
  address: addressSchema,
  status: z.enum(CUSTOMER_STATUSES),
  archived_at: dateTime.nullable(),
  created_at: dateTime,
});
