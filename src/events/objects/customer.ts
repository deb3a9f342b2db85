import { z } from 'zod';
import { documented } from '../docs.js';
import { country, dateTime, id, record, uidNumber } from '../fields.js';

export const CUSTOMER_TYPES = ['business', 'private'] as const;
export const CUSTOMER_STATUSES = ['active', 'archived'] as const;

export const addressSchema = documented(
  record({
    street: documented(z.string().min(1), 'Street and number.'),
    postal_code: documented(z.string().min(1), 'Postal code (1060).'),
    city: documented(z.string().min(1), 'City (Wien).'),
    country,
  }),
  { id: 'Address', description: 'A postal address.' },
);

export const customerSchema = documented(
  record({
    id: documented(id, 'The customer id (cus_…).'),
    type: documented(z.enum(CUSTOMER_TYPES), 'A business (with a VAT id, as a rule) or a private person.'),
    name: documented(z.string().min(1), 'Company or person name.'),
    email: documented(z.email().nullable(), 'The e-mail address invoices go to; null when none is known.'),
    uid_number: documented(uidNumber.nullable(), 'VAT id of a business customer (ATU12345675); null for private customers.'),
    address: addressSchema,
    status: documented(z.enum(CUSTOMER_STATUSES), 'active, or archived once deleted (a delete is a soft delete).'),
    archived_at: documented(dateTime.nullable(), 'When the customer was deleted (archived); null while active.'),
    created_at: documented(dateTime, 'When the customer was created.'),
  }),
  'A customer. Deleting one archives it (soft delete): status archived, archived_at set.',
);
