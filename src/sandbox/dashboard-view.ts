import { openSqliteFile, type SqliteConnection } from '../stores/sqlite/drivers.js';

/** The row of `sandbox_state` that holds the clock, as `persistClock` writes it. */
export interface SavedSandboxClock {
  /** Where the clock started (ms since the epoch) and how far advances moved it; a reopened sandbox continues from them. */
  start: number;
  offset: number;
  /** Whether the clock moves only when told (a seeded sandbox). */
  frozen?: boolean;
  /** The sandbox's time when this row was written, and the wall clock's at that moment. */
  now?: number;
  wall?: number;
}

/** The sandbox's time read from its saved clock: a frozen one stands still, another one runs with the wall clock. */
export function sandboxTimeOf(saved: SavedSandboxClock, wallNow: number): number {
  if (saved.now === undefined || saved.wall === undefined) return saved.start + saved.offset;
  return saved.frozen === true ? saved.now : saved.now + Math.max(0, wallNow - saved.wall);
}

/** What the sandbox's API calls a registration the Dispatcher knows by another id and a proxy URL. */
export interface SandboxRegistrationName {
  id: string;
  url: string;
}

/**
 * A dashboard's view of a sandbox's database: the sandbox's clock (so counts, charts and cards
 * agree with the times the sandbox stamped) and the ids and URLs its API returned for the
 * Dispatcher's registrations. Read from the file on every call, so a running sandbox's advances
 * show at once; opened read-only, never written.
 */
export interface SandboxDashboardView {
  clock: () => number;
  registrationName: (dispatcherId: string) => SandboxRegistrationName | undefined;
  close: () => void;
}

/**
 * The view of the sandbox database `file`, or undefined when the file is not a sandbox's (no
 * `sandbox_state` table): then the dashboard keeps the wall clock and the Dispatcher's names.
 */
export function sandboxDashboardView(file: string, wall: () => number = Date.now): SandboxDashboardView | undefined {
  const { db } = openSqliteFile(file, undefined, 'database', { readonly: true });
  if (!hasTable(db, 'sandbox_state') || !hasTable(db, 'sandbox_webhooks')) {
    db.close();
    return undefined;
  }
  const clockRow = db.prepare("SELECT value FROM sandbox_state WHERE key = 'clock'");
  const nameRow = db.prepare('SELECT id, url FROM sandbox_webhooks WHERE dispatcher_id = ?');
  return {
    clock: () => {
      const row = clockRow.get() as { value: string } | undefined;
      return row === undefined ? wall() : sandboxTimeOf(JSON.parse(row.value) as SavedSandboxClock, wall());
    },
    registrationName: (dispatcherId) => nameRow.get(dispatcherId) as SandboxRegistrationName | undefined,
    close: () => db.close(),
  };
}

function hasTable(db: SqliteConnection, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
}
