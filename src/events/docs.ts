import { z } from 'zod';

/**
 * What the published catalog (JSON Schema, OpenAPI, AsyncAPI: src/catalog/) says about a schema
 * of the event catalog. Written beside the field it documents, so that the validator and its
 * documentation cannot drift apart.
 */
export interface SchemaDocs {
  /**
   * Names a shared schema (`DateTime`, `Address`): the JSON Schema documents define it once
   * (`$defs`, OpenAPI `components.schemas`) and refer to it.
   */
  id?: string;
  description?: string;
  /**
   * A JSON Schema condition for what a zod refinement checks in code (`refine` has no JSON
   * Schema form of its own): applied to the value, `then` must hold where `if` does.
   */
  if?: Record<string, unknown>;
  then?: Record<string, unknown>;
}

/**
 * The documentation of the event schemas, in a registry of its own rather than zod's global one:
 * the ids of shared schemas would collide with ids an application registers there itself.
 */
export const EVENT_DOCS = z.registry<SchemaDocs>();

/**
 * A copy of `schema` carrying `docs`. A copy, because one schema (`dateTime`) is used by many
 * fields, each with its own description; the copy validates exactly like the original, and the
 * JSON Schema of a copy of a named schema refers to the named one.
 */
export function documented<S extends z.ZodType>(schema: S, docs: SchemaDocs | string): S {
  const copy = schema.clone();
  EVENT_DOCS.add(copy, typeof docs === 'string' ? { description: docs } : docs);
  return copy;
}
