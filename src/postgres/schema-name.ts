import { ConfigurationError } from '../errors.js';
import { DEFAULT_POSTGRES_SCHEMA } from './defaults.js';

/** A plain identifier: no quoting surprises, within PostgreSQL's 63-byte limit. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The schema option as it goes into SQL: checked, then double-quoted (so its case is kept).
 * Schema names cannot be bound as parameters, hence the strict check.
 */
export function resolveSchema(schema: string | undefined): { name: string; quoted: string } {
  const name = schema ?? DEFAULT_POSTGRES_SCHEMA;
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new ConfigurationError({ option: 'schema', reason: 'must be a PostgreSQL identifier: a letter or _, then letters, digits or _, at most 63' });
  }
  return { name, quoted: `"${name}"` };
}
