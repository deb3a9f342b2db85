/** A JSON value: what the catalog's documents are made of. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/** A JSON object: a JSON Schema, an OpenAPI or an AsyncAPI document. */
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `value` in which every `$ref` string is passed through `rewrite`. */
export function mapRefs<T extends JsonValue>(value: T, rewrite: (ref: string) => string): T {
  if (Array.isArray(value)) return value.map((item) => mapRefs(item, rewrite)) as T;
  if (!isJsonObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, item] of Object.entries(value)) copy[key] = key === '$ref' && typeof item === 'string' ? rewrite(item) : mapRefs(item, rewrite);
  return copy as T;
}
