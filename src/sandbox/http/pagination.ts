import { z } from 'zod';
import { SandboxError } from '../errors.js';
import { ok, type Pagination, type SandboxResponse } from './response.js';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** The document's shared list parameters, as a list route reads them. */
export interface ListParameters {
  page: number;
  per_page: number;
  sort: string;
  order: 'asc' | 'desc';
  fields: string[] | null;
}

const wholeNumber = (field: string, min: number, max: number) => {
  const reason = `must be a whole number from ${min}${max === Infinity ? '' : ` to ${max}`}`;
  return z
    .string()
    .regex(/^\d+$/, { error: reason })
    .transform(Number)
    .refine((n) => Number.isSafeInteger(n) && n >= min && n <= max, { error: reason })
    .describe(field);
};

const listQuery = (sortable: readonly string[]) =>
  z.object({
    page: wholeNumber('page', 1, Infinity).default(1),
    per_page: wholeNumber('per_page', 1, MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
    sort: z.enum(sortable as [string, ...string[]], { error: `must be one of ${sortable.join(', ')}` }).default('created_at'),
    order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).default('desc'),
    fields: z
      .string()
      .transform((text) => text.split(',').map((name) => name.trim()).filter((name) => name !== ''))
      .nullable()
      .default(null),
  });

/**
 * page (default 1), per_page (default 20, at most 100), sort (a field of the resource, default
 * created_at), order (asc or desc, default desc), fields. A bad value is VALIDATION_ERROR 400:
 * the request itself cannot be read as a list request.
 */
export function listParameters(query: URLSearchParams, sortable: readonly string[]): ListParameters {
  const input = Object.fromEntries(['page', 'per_page', 'sort', 'order', 'fields'].flatMap((name) => (query.has(name) ? [[name, query.get(name)]] : [])));
  const result = listQuery(sortable).safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw SandboxError.validation(String(issue.path[0] ?? ''), issue.message, { malformed: true });
}

/**
 * One page of `items` sorted by the parameters (ties by creation order), in the list envelope.
 * A page beyond the last is VALIDATION_ERROR 400 on `page` (page 1 of an empty list is empty).
 */
export function page<T extends object>(items: readonly T[], parameters: ListParameters): SandboxResponse {
  const lastPage = Math.max(1, Math.ceil(items.length / parameters.per_page));
  if (parameters.page > lastPage) {
    throw SandboxError.validation('page', `must be at most ${lastPage}, the last page (${items.length} ${items.length === 1 ? 'entry' : 'entries'} at per_page ${parameters.per_page})`, {
      malformed: true,
    });
  }
  const direction = parameters.order === 'asc' ? 1 : -1;
  const sorted = items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => direction * (compare(field(a.item, parameters.sort), field(b.item, parameters.sort)) || a.index - b.index))
    .map(({ item }) => item);
  const start = (parameters.page - 1) * parameters.per_page;
  const data = sorted.slice(start, start + parameters.per_page).map((item) => pick(item, parameters.fields));
  const pagination: Pagination = {
    page: parameters.page,
    per_page: parameters.per_page,
    total_count: items.length,
    total_pages: Math.ceil(items.length / parameters.per_page),
  };
  return { ...ok(data), body: { data, pagination } };
}

function field(item: object, name: string): unknown {
  return (item as Record<string, unknown>)[name];
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

/** `fields=id,amount`: only those fields (the id always). */
function pick<T extends object>(item: T, fields: string[] | null): Partial<T> {
  if (fields === null) return item;
  return Object.fromEntries(Object.entries(item).filter(([key]) => key === 'id' || fields.includes(key))) as Partial<T>;
}
