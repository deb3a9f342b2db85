/** Request headers as node:http gives them (lower-case keys), any plain object, or a Fetch `Headers`. */
export type HeadersInput =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Reads a header case-insensitively; a repeated header's values are joined with ", ". */
export function readHeader(headers: HeadersInput, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const value = Object.hasOwn(record, name) ? record[name] : findCaseInsensitive(record, name);
  return Array.isArray(value) ? value.join(', ') : (value as string | undefined);
}

function findCaseInsensitive(
  record: Readonly<Record<string, string | readonly string[] | undefined>>,
  name: string,
): string | readonly string[] | undefined {
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() === name) return record[key];
  }
  return undefined;
}
