import type * as NodeSqlite from 'node:sqlite';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { PreparedStatement, RunResult, SqliteConnection, SqliteTransaction, TransactionFunction } from './connection-interface.js';

/*
 * node:sqlite behind the part of better-sqlite3's API the SQLite backend uses, with
 * better-sqlite3's semantics where the two differ, so that the backend, and an atomic effect
 * written for either driver, cannot tell them apart:
 *   - transactions are functions (`db.transaction(fn).immediate()`), a savepoint inside another;
 *   - parameters: one object of named values in any place, keys the SQL does not name ignored,
 *     `undefined` bound as NULL (node:sqlite refuses it before Node.js 26);
 *   - BLOBs are read as Buffers (node:sqlite gives plain Uint8Arrays);
 *   - TEXT is read whole: Node.js 22's node:sqlite cuts a string at its first NUL character when
 *     it reads it (it binds it whole; Node.js 24 reads it whole too), so there the columns of a
 *     TEXT type are read as BLOBs and decoded (see textReadAsBlob);
 *   - the page cache is better-sqlite3's 16 MB (node:sqlite's SQLite is built with 2 MB).
 * Rows keep node:sqlite's objects without a prototype.
 */

type NodeSqliteModule = typeof NodeSqlite;

/** The Node.js versions whose node:sqlite has what this adapter needs (`isTransaction`, unknown named parameters). */
export const NODE_SQLITE_VERSIONS = 'Node.js 22.16+ and 24+';

/** better-sqlite3's default page cache (`SQLITE_DEFAULT_CACHE_SIZE=-16000`: 16 000 KiB). */
const CACHE_SIZE_KIB = 16_000;

/** node:sqlite where it is usable, and whether it cuts TEXT at a NUL when reading it. */
export interface NodeSqliteSupport {
  module?: NodeSqliteModule;
  cutsTextAtNul?: boolean;
}

let support: NodeSqliteSupport | undefined;

/**
 * node:sqlite when this Node.js has a version of it the adapter can use (Node.js 22.16+ and 24+;
 * 23.x lacks `isTransaction`), loaded once. Node.js 22 prints an ExperimentalWarning when the
 * module is first loaded: it is held back here, so that a receiver never prints it unasked.
 */
export function nodeSqliteSupport(): NodeSqliteSupport {
  support ??= probe();
  return support;
}

function probe(): NodeSqliteSupport {
  // Before Node.js 20.16 there is no getBuiltinModule; before 22.13, no node:sqlite without a flag.
  const builtin = (process as { getBuiltinModule?: (id: 'node:sqlite') => NodeSqliteModule | undefined }).getBuiltinModule;
  const module = builtin && withoutSqliteWarning(() => builtin.call(process, 'node:sqlite'));
  if (!module || !('setAllowUnknownNamedParameters' in module.StatementSync.prototype)) return {};
  // isTransaction is a property of each connection, not of the prototype.
  const probe = new module.DatabaseSync(':memory:');
  try {
    if (!('isTransaction' in probe)) return {};
    return { module, cutsTextAtNul: probe.prepare('SELECT ? AS text').get(NUL_TEXT)?.text !== NUL_TEXT };
  } finally {
    probe.close();
  }
}

/**
 * Runs `load` with Node.js's "SQLite is an experimental feature" warning held back (Node.js
 * emits it once, when node:sqlite is first loaded; every other warning passes).
 */
export function withoutSqliteWarning<T>(load: () => T): T {
  // Put back as it was, and called with the process as `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteExperimentalWarning(warning, rest[0])) return;
    (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  };
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}

function isSqliteExperimentalWarning(warning: string | Error, typeOrOptions: unknown): boolean {
  const type = typeof typeOrOptions === 'string' ? typeOrOptions : (typeOrOptions as { type?: unknown } | undefined)?.type;
  const message = typeof warning === 'string' ? warning : warning.message;
  return (type === 'ExperimentalWarning' || (warning instanceof Error && warning.name === 'ExperimentalWarning')) && message.startsWith('SQLite ');
}

const NUL_TEXT = 'a\u0000b';

/** A node:sqlite connection to `file`, as the backend uses a better-sqlite3 Database. */
export function nodeSqliteConnection(sqlite: Required<NodeSqliteSupport>, file: string, { readonly = false } = {}): SqliteConnection {
  const db = new sqlite.module.DatabaseSync(file, { readOnly: readonly });
  try {
    return new NodeSqliteConnection(db, file, sqlite.cutsTextAtNul);
  } catch (error) {
    db.close();
    throw error;
  }
}

class NodeSqliteConnection implements SqliteConnection {
  /** BEGIN, COMMIT and the savepoint statements, prepared once each. */
  private readonly control = new Map<string, StatementSync>();

  constructor(
    private readonly db: DatabaseSync,
    readonly name: string,
    private readonly cutsTextAtNul: boolean,
  ) {
    db.exec(`PRAGMA cache_size = -${CACHE_SIZE_KIB}`);
  }

  get memory(): boolean {
    return this.name === ':memory:' || this.name === '';
  }

  get open(): boolean {
    return this.db.isOpen;
  }

  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  prepare<P extends unknown[] | {} = unknown[], R = unknown>(source: string): P extends unknown[] ? PreparedStatement<P, R> : PreparedStatement<[P], R> {
    const statement = this.db.prepare(source);
    const rewritten = this.cutsTextAtNul ? textReadAsBlob(source, statement.columns()) : undefined;
    const prepared = rewritten ? new NodeSqliteStatement(this.db.prepare(rewritten.sql), rewritten.textColumns) : new NodeSqliteStatement(statement);
    return prepared as unknown as P extends unknown[] ? PreparedStatement<P, R> : PreparedStatement<[P], R>;
  }

  exec(source: string): this {
    this.db.exec(source);
    return this;
  }

  pragma(source: string, { simple = false }: { simple?: boolean } = {}): unknown {
    const statement = this.db.prepare(`PRAGMA ${source}`);
    if (!simple) return statement.all();
    const row = statement.get();
    return row === undefined ? undefined : Object.values(row)[0];
  }

  transaction<F extends TransactionFunction>(fn: F): SqliteTransaction<F> {
    const run = (begin: string) =>
      (...args: unknown[]) => (this.db.isTransaction ? this.inSavepoint(fn, args) : this.inTransaction(begin, fn, args));
    return Object.assign(run('BEGIN'), { deferred: run('BEGIN DEFERRED'), immediate: run('BEGIN IMMEDIATE'), exclusive: run('BEGIN EXCLUSIVE') }) as SqliteTransaction<F>;
  }

  close(): this {
    this.db.close();
    return this;
  }

  private inTransaction(begin: string, fn: TransactionFunction, args: unknown[]): unknown {
    this.run(begin);
    try {
      const result = synchronous(fn(...args));
      this.run('COMMIT');
      return result;
    } catch (error) {
      // SQLite ends the transaction itself after some errors; a failed COMMIT leaves it open.
      if (this.db.isTransaction) this.run('ROLLBACK');
      throw error;
    }
  }

  private inSavepoint(fn: TransactionFunction, args: unknown[]): unknown {
    this.run('SAVEPOINT acct_webhook');
    try {
      const result = synchronous(fn(...args));
      this.run('RELEASE acct_webhook');
      return result;
    } catch (error) {
      if (this.db.isTransaction) {
        this.run('ROLLBACK TO acct_webhook');
        this.run('RELEASE acct_webhook');
      }
      throw error;
    }
  }

  private run(sql: string): void {
    let statement = this.control.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.control.set(sql, statement);
    }
    statement.run();
  }
}

function synchronous(result: unknown): unknown {
  if (result instanceof Promise) throw new TypeError('Transaction function cannot return a promise');
  return result;
}

class NodeSqliteStatement implements PreparedStatement {
  constructor(
    private readonly statement: StatementSync,
    /** The columns read as BLOBs that are TEXT (textReadAsBlob). */
    private readonly textColumns: readonly string[] = [],
  ) {
    statement.setAllowUnknownNamedParameters(true);
  }

  run(...parameters: unknown[]): RunResult {
    const { named, anonymous } = bindable(parameters);
    const { changes, lastInsertRowid } = named ? this.statement.run(named, ...anonymous) : this.statement.run(...anonymous);
    return { changes: Number(changes), lastInsertRowid };
  }

  get(...parameters: unknown[]): unknown {
    const { named, anonymous } = bindable(parameters);
    const row = named ? this.statement.get(named, ...anonymous) : this.statement.get(...anonymous);
    return row === undefined ? undefined : this.read(row);
  }

  all(...parameters: unknown[]): unknown[] {
    const { named, anonymous } = bindable(parameters);
    const rows = named ? this.statement.all(named, ...anonymous) : this.statement.all(...anonymous);
    for (const row of rows) this.read(row);
    return rows;
  }

  /** The row as better-sqlite3 reads it: text as strings, BLOBs as Buffers (node:sqlite's row is a fresh object, changed in place). */
  private read(row: Record<string, SQLInputValue>): Record<string, SQLInputValue> {
    for (const column of this.textColumns) {
      const value = row[column];
      if (value instanceof Uint8Array) row[column] = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
    }
    for (const key in row) {
      const value = row[key];
      if (value instanceof Uint8Array && !Buffer.isBuffer(value)) row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
    return row;
  }
}

/**
 * For a node:sqlite that cuts TEXT at a NUL when reading it (Node.js 22): the statement with its
 * columns of a TEXT type (declared TEXT, CHAR or CLOB, also through aliases and views) read as
 * BLOBs, which SQLite hands over whole. A query is wrapped (`SELECT … FROM (query)`, which SQLite
 * flattens); a RETURNING list of plain column names is rewritten. Anything else (a PRAGMA,
 * expressions without a declared type, a RETURNING of expressions) is left as it is.
 */
function textReadAsBlob(sql: string, columns: readonly { name: string; type: string | null }[]): { sql: string; textColumns: string[] } | undefined {
  const textColumns = columns.filter((column) => column.type !== null && /TEXT|CHAR|CLOB/i.test(column.type)).map((column) => column.name);
  if (textColumns.length === 0 || new Set(columns.map((column) => column.name)).size !== columns.length) return undefined;
  const asRead = (name: string, expression: string) =>
    textColumns.includes(name) ? `CASE typeof(${expression}) WHEN 'text' THEN CAST(${expression} AS BLOB) ELSE ${expression} END AS ${quoted(name)}` : `${expression} AS ${quoted(name)}`;
  if (/^\s*(SELECT|WITH)\b/i.test(sql)) {
    return { sql: `SELECT ${columns.map(({ name }) => asRead(name, quoted(name))).join(', ')} FROM (${sql})`, textColumns };
  }
  const returning = /\bRETURNING\s+([\w\s,]+)$/i.exec(sql);
  const names = returning?.[1]!.split(',').map((name) => name.trim());
  if (!returning || names!.length !== columns.length || names!.some((name, i) => name !== columns[i]!.name)) return undefined;
  return { sql: `${sql.slice(0, returning.index)}RETURNING ${names!.map((name) => asRead(name, name)).join(', ')}`, textColumns };
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** better-sqlite3's parameters (values, arrays of values, one object of named values anywhere) → node:sqlite's (the object first). */
function bindable(parameters: unknown[]): { named?: Record<string, SQLInputValue>; anonymous: SQLInputValue[] } {
  let named: Record<string, SQLInputValue> | undefined;
  const anonymous: SQLInputValue[] = [];
  for (const parameter of parameters) {
    if (Array.isArray(parameter)) for (const value of parameter) anonymous.push(bound(value));
    else if (isNamed(parameter)) named = namedValues(parameter);
    else anonymous.push(bound(parameter));
  }
  return named ? { named, anonymous } : { anonymous };
}

function isNamed(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !ArrayBuffer.isView(value);
}

function namedValues(values: Record<string, unknown>): Record<string, SQLInputValue> {
  for (const key in values) {
    if (values[key] === undefined) return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, bound(value)]));
  }
  return values as Record<string, SQLInputValue>;
}

const bound = (value: unknown): SQLInputValue => (value === undefined ? null : (value as SQLInputValue));
