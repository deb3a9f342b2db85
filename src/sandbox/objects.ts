import type { SqliteConnection } from '../stores/sqlite/drivers.js';
import type { z } from 'zod';
import type { customerSchema } from '../events/objects/customer.js';
import type { invoiceSchema } from '../events/objects/invoice.js';
import type { paymentSchema } from '../events/objects/payment.js';
import type { subscriptionSchema } from '../events/objects/subscription.js';
import type { uvaSchema } from '../events/objects/uva.js';
import { SandboxError } from './errors.js';

/**
 * The objects the sandbox keeps, each with the layout of its event group's object in the
 * package's catalog (a transaction is the payments group's object).
 */
export interface SandboxObjects {
  customer: z.output<typeof customerSchema>;
  invoice: z.output<typeof invoiceSchema>;
  transaction: z.output<typeof paymentSchema>;
  subscription: z.output<typeof subscriptionSchema>;
  uva: z.output<typeof uvaSchema>;
}
export type ObjectKind = keyof SandboxObjects;

/** The sandbox's resources in `sandbox_objects`, as JSON, in the order they were made. */
export class ObjectStore {
  constructor(private readonly db: SqliteConnection) {}

  insert<K extends ObjectKind>(kind: K, object: SandboxObjects[K]): SandboxObjects[K] {
    this.db.prepare('INSERT INTO sandbox_objects (id, kind, body) VALUES (?, ?, ?)').run(object.id, kind, JSON.stringify(object));
    return object;
  }

  save<K extends ObjectKind>(kind: K, object: SandboxObjects[K]): SandboxObjects[K] {
    this.db.prepare('UPDATE sandbox_objects SET body = ? WHERE id = ? AND kind = ?').run(JSON.stringify(object), object.id, kind);
    return object;
  }

  /** The object a path names. @throws SandboxError NOT_FOUND */
  get<K extends ObjectKind>(kind: K, id: string): SandboxObjects[K] {
    const found = this.find(kind, id);
    if (found === undefined) throw SandboxError.notFound(kind, id);
    return found;
  }

  /** The object a request body refers to. @throws SandboxError VALIDATION_ERROR on `field` */
  reference<K extends ObjectKind>(kind: K, id: unknown, field: string): SandboxObjects[K] {
    const found = typeof id === 'string' ? this.find(kind, id) : undefined;
    if (found === undefined) throw SandboxError.validation(field, `must be the id of a ${kind}`);
    return found;
  }

  private find<K extends ObjectKind>(kind: K, id: string): SandboxObjects[K] | undefined {
    const row = this.db.prepare('SELECT body FROM sandbox_objects WHERE id = ? AND kind = ?').get(id, kind) as { body: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.body) as SandboxObjects[K]);
  }

  /** Every object of a kind, oldest first. */
  all<K extends ObjectKind>(kind: K): SandboxObjects[K][] {
    const rows = this.db.prepare('SELECT body FROM sandbox_objects WHERE kind = ? ORDER BY seq').all(kind) as { body: string }[];
    return rows.map((row) => JSON.parse(row.body) as SandboxObjects[K]);
  }
}
