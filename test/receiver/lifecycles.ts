import type { EventType, WebhookEvent } from '../../src/index.js';
import { createTestEvent } from '../../src/testing/index.js';

/** Per object group, the lifecycles the platform can produce (a variant is picked per object). */
const LIFECYCLES: readonly (readonly EventType[])[][] = [
  [
    ['invoice.created', 'invoice.sent', 'invoice.paid'],
    ['invoice.created', 'invoice.sent', 'invoice.overdue', 'invoice.paid'],
    ['invoice.created', 'invoice.sent', 'invoice.cancelled'],
    ['invoice.created'],
  ],
  [
    ['customer.created', 'customer.updated', 'customer.updated'],
    ['customer.created', 'customer.updated', 'customer.deleted'],
    ['customer.created'],
    ['customer.updated', 'customer.deleted'],
  ],
  [['payment.received', 'payment.refunded'], ['payment.failed'], ['payment.received'], ['payment.received', 'payment.refunded']],
  [
    ['subscription.created', 'subscription.updated', 'subscription.renewed', 'subscription.cancelled'],
    ['subscription.created', 'subscription.renewed', 'subscription.renewed'],
    ['subscription.created', 'subscription.cancelled'],
    ['subscription.updated'],
  ],
  [['uva.submitted', 'uva.confirmed'], ['uva.submitted', 'uva.rejected'], ['uva.submitted'], ['uva.submitted', 'uva.confirmed']],
];

const T0 = Date.UTC(2026, 10, 1, 8, 0, 0);

/**
 * `objects` objects, each with the events of one lifecycle (`variants[i]` picks it), in the
 * order the platform emitted them: `created` one second apart, and `data.object.seq` counting
 * them, so a handler can show which event it applied last.
 */
export function lifecycleEvents(variants: readonly number[]): WebhookEvent[][] {
  return variants.map((variant, index) => {
    const group = LIFECYCLES[index % LIFECYCLES.length]!;
    const types = group[variant % group.length]!;
    const objectId = `obj_${index}`;
    return types.map((type, seq) =>
      createTestEvent(type, {
        id: `evt_${index}_${seq}`,
        created: new Date(T0 + index * 60_000 + seq * 1_000).toISOString(),
        data: { object: { id: objectId, seq } as never },
      }),
    );
  });
}

/** The state a handler keeps per object: the last event applied, and how many creation side effects ran. */
export interface ObjectRow {
  type: string;
  seq: number;
  creations: number;
}

const CREATION_TYPES = new Set<string>(['invoice.created', 'customer.created', 'payment.received', 'subscription.created', 'uva.submitted']);

/** What applying every object's events in their emitted order gives. */
export function appliedInOrder(lifecycles: WebhookEvent[][]): Map<string, ObjectRow> {
  const rows = new Map<string, ObjectRow>();
  for (const events of lifecycles) {
    for (const event of events) {
      const key = event.data.object.id;
      const creations = (rows.get(key)?.creations ?? 0) + (CREATION_TYPES.has(event.type) ? 1 : 0);
      rows.set(key, { type: event.type, seq: (event.data.object as unknown as { seq: number }).seq, creations });
    }
  }
  return rows;
}
