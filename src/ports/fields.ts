import { isoString } from '../kernel/iso-string.js';
/*
 * A field list describes a stored record once: each field's name, how it is kept, and whether
 * the public record shows it. The stored type, the public record type, the mapping to the record
 * and every backend's columns and row conversion derive from it, so a new field is one line.
 */

/**
 * How a field is kept. `value`: a string kept as it is everywhere (an id, a status, a URL).
 * `integer`: a whole number. `number`: a number that may have a fraction (a rate). `time`:
 * milliseconds since the epoch in storage, ISO 8601 in the public record. `flag`: a boolean
 * (SQLite keeps 0 or 1). `text`: text from outside the package (a receiver's answer, an event
 * id), which a backend may have to encode. `json`: a list or a map (JSON text on SQLite, `json`
 * on PostgreSQL). `bytes`: a Buffer, exactly (BLOB, bytea).
 */
export type FieldKind = 'value' | 'integer' | 'number' | 'time' | 'flag' | 'text' | 'json' | 'bytes';

/** The column type each kind has in each backend's tables: what the schema tests compare. */
export const COLUMN_TYPES: Readonly<Record<FieldKind, { sqlite: string; postgres: readonly string[] }>> = {
  value: { sqlite: 'TEXT', postgres: ['text'] },
  integer: { sqlite: 'INTEGER', postgres: ['integer', 'bigint'] },
  number: { sqlite: 'REAL', postgres: ['double precision'] },
  time: { sqlite: 'INTEGER', postgres: ['bigint'] },
  flag: { sqlite: 'INTEGER', postgres: ['boolean'] },
  text: { sqlite: 'TEXT', postgres: ['text'] },
  json: { sqlite: 'TEXT', postgres: ['json'] },
  bytes: { sqlite: 'BLOB', postgres: ['bytea'] },
};

export interface Field<Kind extends FieldKind = FieldKind, Stored = unknown, Internal extends boolean = boolean> {
  readonly kind: Kind;
  /** Kept in storage for the dispatcher's own use, left out of the public record. */
  readonly internal: Internal;
  /** A column of the record's own table; `false` for a value joined from another (the event's payload). */
  readonly column: boolean;
  /** Type only: the value in storage. */
  readonly stored?: Stored;
}

export type Fields = Readonly<Record<string, Field>>;

interface FieldOptions<Internal extends boolean> {
  internal?: Internal;
  column?: boolean;
}

function field<Kind extends FieldKind, Stored, Internal extends boolean>(kind: Kind, options: FieldOptions<Internal> = {}): Field<Kind, Stored, Internal> {
  return { kind, internal: (options.internal ?? false) as Internal, column: options.column ?? true };
}

/** A string kept as it is: an id, a status, a URL. */
export const value = <Stored extends string | null, Internal extends boolean = false>(options?: FieldOptions<Internal>) =>
  field<'value', Stored, Internal>('value', options);
/** A whole number: a count, an HTTP status, a duration. */
export const integer = <Stored extends number | null = number, Internal extends boolean = false>(options?: FieldOptions<Internal>) =>
  field<'integer', Stored, Internal>('integer', options);
/** A number that may have a fraction: a rate. */
export const number = <Stored extends number | null = number>() => field<'number', Stored, false>('number');
/** A point in time: ms in storage, ISO 8601 in the record. */
export const time = <Stored extends number | null = number, Internal extends boolean = false>(options?: FieldOptions<Internal>) =>
  field<'time', Stored, Internal>('time', options);
/** A boolean. */
export const flag = () => field<'flag', boolean, false>('flag');
/** Text that came from outside. */
export const text = <Stored extends string | null = string, Internal extends boolean = false>(options?: FieldOptions<Internal>) =>
  field<'text', Stored, Internal>('text', options);
/** A list or a map, kept whole. */
export const json = <Stored extends object>() => field<'json', Stored, false>('json');
/** Bytes kept exactly. */
export const bytes = () => field<'bytes', Buffer, false>('bytes');

/** The record as stored: times in milliseconds. */
export type StoredOf<F extends Fields> = { -readonly [K in keyof F]: F[K] extends Field<FieldKind, infer Stored> ? Stored : never };

/** The public record: internal fields left out, times in ISO 8601. */
export type RecordOf<F extends Fields> = {
  -readonly [K in keyof F as F[K] extends Field<FieldKind, unknown, true> ? never : K]: F[K] extends Field<'time', infer Stored>
    ? null extends Stored
      ? string | null
      : string
    : F[K] extends Field<FieldKind, infer Stored>
      ? Stored
      : never;
};

/** The names of the fields that are columns of the record's table, in the list's order. */
export function columnsOf<F extends Fields>(fields: F): (keyof F & string)[] {
  return Object.keys(fields).filter((name) => fields[name]!.column);
}

/** The public record of a stored one, its fields in the list's order. */
export function toPublicRecord<F extends Fields>(fields: F, stored: StoredOf<F>): RecordOf<F> {
  const record: Record<string, unknown> = {};
  for (const [name, { kind, internal }] of Object.entries(fields)) {
    if (internal) continue;
    const storedValue = stored[name];
    if (storedValue === null) record[name] = null;
    else if (kind === 'time') record[name] = isoString(storedValue as number);
    // A list or map is the caller's to change: never the stored one itself.
    else if (kind === 'json') record[name] = structuredClone(storedValue);
    else record[name] = storedValue;
  }
  return record as RecordOf<F>;
}

/** How one backend reads and writes a kind of field; `null` never reaches it. */
export interface KindCodec {
  read(value: unknown, column: string): unknown;
  write(value: unknown, column: string): unknown;
}

export type BackendCodecs = Readonly<Record<FieldKind, KindCodec>>;

/** A field list as one backend keeps it: its columns, and rows read and written by them. */
export interface RowMapping<F extends Fields> {
  readonly columns: readonly (keyof F & string)[];
  /** A row (its columns by name, the fields that are not columns too) → the stored record. */
  read(row: Readonly<Record<string, unknown>>): StoredOf<F>;
  /** The stored record → the values of `columns`, by name. */
  write(stored: StoredOf<F>): Record<string, unknown>;
}

export function rowMapping<F extends Fields>(fields: F, codecs: BackendCodecs): RowMapping<F> {
  const all = Object.entries(fields).map(([name, { kind, column }]) => ({ name, codec: codecs[kind], column }));
  const columns = all.filter((entry) => entry.column);
  return {
    columns: columnsOf(fields),
    read(row) {
      const stored: Record<string, unknown> = {};
      for (const { name, codec } of all) {
        const raw = row[name];
        if (raw === undefined) throw new Error(`The row has no column ${name}`);
        stored[name] = raw === null ? null : codec.read(raw, name);
      }
      return stored as StoredOf<F>;
    },
    write(stored) {
      const row: Record<string, unknown> = {};
      for (const { name, codec } of columns) {
        const storedValue = stored[name];
        row[name] = storedValue === null ? null : codec.write(storedValue, name);
      }
      return row;
    },
  };
}

/** A codec that passes values through unchanged. */
export const AS_IS: KindCodec = { read: (stored) => stored, write: (stored) => stored };
