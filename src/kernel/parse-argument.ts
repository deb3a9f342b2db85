import { z } from 'zod';
import { parseOptions } from './configuration.js';

/**
 * Checks a factory's positional argument (a file name, a URL or pool) like an option: a
 * ConfigurationError with `details.option` = `name` and the schema's reason.
 */
export function parseArgument<Schema extends z.ZodType>(schema: Schema, name: string, value: unknown, subject: string): z.output<Schema> {
  return (parseOptions(z.strictObject({ [name]: schema }), { [name]: value }, subject) as Record<string, z.output<Schema>>)[name] as z.output<Schema>;
}
