import { z } from 'zod';
import { numberIn } from '../../kernel/configuration.js';
import { DEFAULT_POSTGRES_SCHEMA, POSTGRES_PROTOCOLS } from './postgres-defaults.js';
import type { CheckedConnectionOptions, PostgresPool } from './pool.js';
import { MAX_TIMER_MS } from '../../kernel/timers.js';

const URL_EXAMPLE = 'postgres://user:password@host:5432/database';
/** A plain identifier: no quoting surprises, within PostgreSQL's 63-byte limit. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const IDENTIFIER_RULE = 'must be a PostgreSQL identifier: a letter or _, then letters, digits or _, at most 63';

/**
 * The first argument of a PostgreSQL factory: a `postgres://` URL or a pool. The reasons never
 * repeat the text given: a URL may hold a password.
 */
export const postgresTarget = z.unknown().superRefine((value, context) => {
  const reason = typeof value === 'string' ? urlProblem(value) : isPool(value) ? null : `must be a PostgreSQL URL (${URL_EXAMPLE}) or a pg.Pool`;
  if (reason !== null) context.addIssue({ code: 'custom', message: reason });
}) as unknown as z.ZodType<PostgresPool | string>;

/** The connection options, for a URL (`fromUrl`) or for a pool that was passed in (which keeps its own settings). */
export function connectionShape(fromUrl: boolean) {
  const urlOnly = <T extends z.ZodType>(schema: T) =>
    fromUrl ? schema.optional() : z.undefined({ error: 'applies only when a URL is given; configure the pool you pass instead' }).optional();
  return {
    schema: z.string({ error: IDENTIFIER_RULE }).regex(IDENTIFIER, { error: IDENTIFIER_RULE }).optional(),
    poolSize: urlOnly(numberIn(1, 10_000, { integer: true })),
    connectTimeoutMs: urlOnly(numberIn(1, MAX_TIMER_MS, { integer: true })),
    preparedStatements: z.boolean({ error: 'must be true or false' }).optional(),
  };
}

/** The schema option as it goes into SQL: double-quoted (so its case is kept); schema names cannot be bound parameters. */
export function schemaName(options: CheckedConnectionOptions): { name: string; quoted: string } {
  const name = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  return { name, quoted: `"${name}"` };
}

function urlProblem(url: string): string | null {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return `cannot be parsed as a URL; expected ${URL_EXAMPLE}`;
  }
  return POSTGRES_PROTOCOLS.has(protocol) ? null : `must start with postgres:// or postgresql://; expected ${URL_EXAMPLE}`;
}

function isPool(value: unknown): value is PostgresPool {
  const candidate = (typeof value === 'object' && value !== null ? value : {}) as Partial<Record<keyof PostgresPool, unknown>>;
  return typeof candidate.query === 'function' && typeof candidate.connect === 'function' && typeof candidate.end === 'function';
}
