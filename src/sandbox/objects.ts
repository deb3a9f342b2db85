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

/**
 * One account's resources in `sandbox_objects`, as JSON, in the order they were made. The table
 * holds every account's; this store reads and writes those of its business only, and tells an
 * id of another account's object (FORBIDDEN) from one that names nothing (NOT_FOUND).
 */
export class ObjectStore {
  constructor(
    private readonly db: SqliteConnection,
    /** The account's business: the owner of what this store inserts, the only one it shows. */
    private readonly businessId: string,
  ) {}

  insert<K extends ObjectKind>(kind: K, object: SandboxObjects[K]): SandboxObjects[K] {
    this.db.prepare('INSERT INTO sandbox_objects (id, kind, body, business_id) VALUES (?, ?, ?, ?)').run(object.id, kind, JSON.stringify(object), this.businessId);
    return object;
  }

  save<K extends ObjectKind>(kind: K, object: SandboxObjects[K]): SandboxObjects[K] {
    this.db.prepare('UPDATE sandbox_objects SET body = ? WHERE id = ? AND kind = ? AND business_id = ?').run(JSON.stringify(object), object.id, kind, this.businessId);
    return object;
  }

  /** The object a path names. @throws SandboxError NOT_FOUND; FORBIDDEN when it is another account's */
  get<K extends ObjectKind>(kind: K, id: string): SandboxObjects[K] {
    const found = this.find(kind, id);
    if (found === undefined) throw SandboxError.notFound(kind, id);
    if (found.owner !== this.businessId) throw SandboxError.forbidden(kind, id);
    return found.object;
  }

  /** The object a request body refers to. @throws SandboxError VALIDATION_ERROR on `field`; FORBIDDEN when it is another account's */
  reference<K extends ObjectKind>(kind: K, id: unknown, field: string): SandboxObjects[K] {
    const found = typeof id === 'string' ? this.find(kind, id) : undefined;
    if (found === undefined) throw SandboxError.validation(field, `must be the id of a ${kind}`);
    if (found.owner !== this.businessId) throw SandboxError.forbidden(kind, id as string, field);
    return found.object;
  }

  private find<K extends ObjectKind>(kind: K, id: string): { object: SandboxObjects[K]; owner: string } | undefined {
    const row = this.db.prepare('SELECT body, business_id FROM sandbox_objects WHERE id = ? AND kind = ?').get(id, kind) as { body: string; business_id: string } | undefined;
    return row === undefined ? undefined : { object: JSON.parse(row.body) as SandboxObjects[K], owner: row.business_id };
  }

  /** Every object of a kind of this account, oldest first. */
  all<K extends ObjectKind>(kind: K): SandboxObjects[K][] {
    const rows = this.db.prepare('SELECT body FROM sandbox_objects WHERE business_id = ? AND kind = ? ORDER BY seq').all(this.businessId, kind) as { body: string }[];
    return rows.map((row) => JSON.parse(row.body) as SandboxObjects[K]);
  }
}
