import { z } from 'zod';
import { country, uidNumber } from '../../events/fields.js';
import { CUSTOMER_TYPES } from '../../events/objects/customer.js';
import { isoNow, type SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { createObject, definedFields, updateObject } from './changes.js';
import { listParameters, page } from '../http/pagination.js';
import { ok } from '../http/response.js';
import type { SandboxObjects } from '../objects.js';
import type { Route } from '../http/router.js';
import { parseInput } from '../http/validate.js';
import { listInvoices } from './invoices.js';

type Customer = SandboxObjects['customer'];

/** Used when a customer is created without an address; the event schema requires one. */
export const DEFAULT_ADDRESS = { street: 'Stephansplatz 1', postal_code: '1010', city: 'Wien', country: 'AT' } as const;

const addressInput = z.strictObject({ street: z.string().min(1), postal_code: z.string().min(1), city: z.string().min(1), country });
const customerFields = {
  name: z.string().trim().min(1, { error: 'must not be empty' }).max(200),
  email: z.email({ error: 'must be an e-mail address' }).nullable(),
  type: z.enum(CUSTOMER_TYPES, { error: `must be one of ${CUSTOMER_TYPES.join(', ')}` }),
  uid_number: uidNumber.nullable(),
  address: addressInput,
};
const createCustomer = z.strictObject({
  name: customerFields.name,
  email: customerFields.email.optional(),
  type: customerFields.type.optional(),
  uid_number: customerFields.uid_number.optional(),
  address: customerFields.address.optional(),
});
const updateCustomer = z.strictObject({
  name: customerFields.name.optional(),
  email: customerFields.email.optional(),
  type: customerFields.type.optional(),
  uid_number: customerFields.uid_number.optional(),
  address: customerFields.address.optional(),
});

const SORTABLE = ['created_at', 'name'] as const;

/** `/v1/customers`: create (customer.created), update (customer.updated), archive by DELETE (customer.deleted). */
export function customerRoutes(context: SandboxContext): Route[] {
  const { objects, emitter, ids } = context;
  return [
    {
      method: 'GET',
      path: '/v1/customers',
      handler: ({ query }) => {
        const search = query.get('search')?.toLowerCase();
        const type = query.get('type');
        const customers = objects
          .all('customer')
          .filter((customer) => search === undefined || `${customer.name} ${customer.email ?? ''}`.toLowerCase().includes(search))
          .filter((customer) => type === null || customer.type === type);
        return page(customers, listParameters(query, SORTABLE));
      },
    },
    { method: 'GET', path: '/v1/customers/:id', handler: ({ params }) => ok(objects.get('customer', params.id!)) },
    {
      method: 'GET',
      path: '/v1/customers/:id/invoices',
      handler: ({ params, query }) => listInvoices(context, query, objects.get('customer', params.id!).id),
    },
    {
      method: 'POST',
      path: '/v1/customers',
      handler: ({ body }) => {
        const input = parseInput(createCustomer, body);
        const customer: Customer = {
          id: ids.next('cus'),
          type: input.type ?? (input.uid_number ? 'business' : 'private'),
          name: input.name,
          email: input.email ?? null,
          uid_number: input.uid_number ?? null,
          address: input.address ?? { ...DEFAULT_ADDRESS },
          status: 'active',
          archived_at: null,
          created_at: isoNow(context),
        };
        return createObject(context, 'customer', 'customer.created', customer);
      },
    },
    {
      method: 'PATCH',
      path: '/v1/customers/:id',
      handler: ({ params, body }) => {
        const customer = activeCustomer(context, params.id!);
        const input = parseInput(updateCustomer, body);
        return updateObject(context, 'customer', 'customer.updated', customer, { ...customer, ...definedFields(input) });
      },
    },
    {
      method: 'DELETE',
      path: '/v1/customers/:id',
      handler: async ({ params }) => {
        const customer = activeCustomer(context, params.id!);
        const archived = { ...customer, status: 'archived' as const, archived_at: isoNow(context) };
        objects.save('customer', archived);
        await emitter.emit('customer.deleted', archived, { status: 'active', archived_at: null });
        return ok(archived);
      },
    },
  ];
}

/** A customer that is not archived. @throws SandboxError NOT_FOUND, VALIDATION_ERROR (archived) */
function activeCustomer(context: SandboxContext, id: string): Customer {
  const customer = context.objects.get('customer', id);
  if (customer.status === 'archived') throw SandboxError.validation('status', 'the customer is archived; an archived customer cannot change');
  return customer;
}
