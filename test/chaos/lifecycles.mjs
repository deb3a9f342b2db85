// The objects of the inbox modes: each goes through one lifecycle, its events emitted in order.

const LIFECYCLES = [
  ['invoice.created', 'invoice.sent', 'invoice.paid'],
  ['customer.created', 'customer.updated', 'customer.updated', 'customer.deleted'],
  ['payment.received', 'payment.refunded'],
  ['subscription.created', 'subscription.updated', 'subscription.renewed', 'subscription.cancelled'],
  ['uva.submitted', 'uva.confirmed'],
  ['invoice.created', 'invoice.sent', 'invoice.overdue', 'invoice.paid'],
  ['uva.submitted', 'uva.rejected'],
  ['payment.failed'],
];

export const CREATION_TYPES = new Set(['invoice.created', 'customer.created', 'payment.received', 'subscription.created', 'uva.submitted']);

/** At least `count` events: [{ type, objectId, seq }], object by object, each object's in lifecycle order. */
export function lifecycleEvents(count) {
  const events = [];
  for (let index = 0; events.length < count; index++) {
    const types = LIFECYCLES[index % LIFECYCLES.length];
    types.forEach((type, seq) => events.push({ type, objectId: `obj_${index}`, seq }));
  }
  return events;
}
