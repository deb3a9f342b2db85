import { ATTEMPT_FIELDS, DELIVERY_FIELDS } from '../../src/ports/delivery-fields.js';
import { EVENT_RECORD_FIELDS } from '../../src/ports/event-records.js';
import { COLUMN_TYPES, type Fields } from '../../src/ports/fields.js';
import { INBOX_FIELDS } from '../../src/ports/inbox-rows.js';
import { QUARANTINE_FIELDS } from '../../src/ports/quarantine-fields.js';
import { WEBHOOK_FIELDS } from '../../src/ports/webhook-fields.js';

/*
 * Which table keeps which field list, for the schema tests of each backend (test/stores/sqlite/schema.test.ts,
 * test/stores/postgres/schema.test.ts): after migrating, a table's columns are exactly its list's
 * columns, of the kind's type, and the columns the store keeps for itself, named here with why.
 */
type StoreOnly = Readonly<Record<string, 'integer' | 'number' | 'flag' | 'time' | 'value'>>;

export const DESCRIBED_TABLES: readonly { table: string; fields: Fields; storeOnly: StoreOnly; postgresOnly?: StoreOnly }[] = [
  // deleted_at: a deleted registration keeps its row for its log; rate_tat: the rate limit's state,
  // written by claims; seq (PostgreSQL): the order of registration, which SQLite's rowid gives.
  { table: 'dispatch_webhooks', fields: WEBHOOK_FIELDS, storeOnly: { deleted_at: 'time', rate_tat: 'number' }, postgresOnly: { seq: 'integer' } },
  // seq: the order of insertion (paging, fair claims); webhook_active: the webhook's status on its deliveries, for the queue's index.
  { table: 'dispatch_deliveries', fields: DELIVERY_FIELDS, storeOnly: { seq: 'integer', webhook_active: 'flag' } },
  // seq: the order the log was recorded in (export's cursor).
  { table: 'dispatch_attempts', fields: ATTEMPT_FIELDS, storeOnly: { seq: 'integer' } },
  { table: 'acct_webhook_events', fields: EVENT_RECORD_FIELDS, storeOnly: {} },
  { table: 'acct_webhook_quarantine', fields: QUARANTINE_FIELDS, storeOnly: {} },
  { table: 'acct_webhook_inbox', fields: INBOX_FIELDS, storeOnly: {} },
];

/** A table's columns as a backend reports them: name → type. */
export type TableColumns = Readonly<Record<string, string>>;

/** What a table's columns must be: every column of the list and the store's own, each of its kind's type. */
export function expectedColumns(described: (typeof DESCRIBED_TABLES)[number], backend: 'sqlite' | 'postgres'): Record<string, readonly string[]> {
  const typeOf = (kind: keyof typeof COLUMN_TYPES): readonly string[] => (backend === 'sqlite' ? [COLUMN_TYPES[kind].sqlite] : COLUMN_TYPES[kind].postgres);
  const columns: Record<string, readonly string[]> = {};
  for (const [name, field] of Object.entries(described.fields)) if (field.column) columns[name] = typeOf(field.kind);
  const storeOnly = backend === 'postgres' ? { ...described.storeOnly, ...described.postgresOnly } : described.storeOnly;
  for (const [name, kind] of Object.entries(storeOnly)) columns[name] = typeOf(kind);
  return columns;
}

/** The columns whose type is not one the list allows, and those missing or left over: empty when the table matches. */
export function schemaDifferences(actual: TableColumns, expected: Record<string, readonly string[]>): string[] {
  const differences: string[] = [];
  for (const [name, types] of Object.entries(expected)) {
    if (!(name in actual)) differences.push(`missing column ${name}`);
    else if (!types.includes(actual[name]!)) differences.push(`${name} is ${actual[name]}, not ${types.join(' or ')}`);
  }
  for (const name of Object.keys(actual)) if (!(name in expected)) differences.push(`column ${name} is in no field list`);
  return differences;
}
