import { openSqliteFile } from './drivers.js';

/**
 * Whether the existing SQLite file `file` has a table `table`. Opened read-only and closed again:
 * nothing is created or migrated (a typo in a path must not leave an empty database behind).
 */
export function sqliteFileHasTable(file: string, table: string): boolean {
  const { db } = openSqliteFile(file, undefined, 'database', { readonly: true });
  try {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  } finally {
    db.close();
  }
}
