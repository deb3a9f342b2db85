import { PostgresValueError } from './errors.js';

/*
 * Times are milliseconds since the epoch in `bigint` columns. pg returns int8 as a string (it
 * cannot know the value fits a double); a pool whose owner installed a type parser may return a
 * number or a BigInt instead. Every form is converted here, and only when exact.
 */

const DIGITS = /^-?\d+$/;

/** A bigint column's value as a number; throws rather than round. */
export function readInt8(value: unknown, column: string): number {
  const number = toNumber(value);
  if (number === undefined || !Number.isSafeInteger(number)) {
    throw new PostgresValueError(`Column ${column} holds ${String(value)}, not an integer JavaScript can represent exactly`, { column });
  }
  return number;
}

export function readNullableInt8(value: unknown, column: string): number | null {
  return value === null || value === undefined ? null : readInt8(value, column);
}

/** A number about to be written to a bigint column; a fraction would be refused by PostgreSQL, a huge one rounded. */
export function int8(value: number, field: string): number {
  if (!Number.isSafeInteger(value)) {
    throw new PostgresValueError(`${field} must be a whole number of milliseconds (a safe integer), got ${value}`, { field, value });
  }
  return value;
}

export function nullableInt8(value: number | null, field: string): number | null {
  return value === null ? null : int8(value, field);
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : undefined;
  if (typeof value === 'string' && DIGITS.test(value)) return Number(value);
  return undefined;
}
