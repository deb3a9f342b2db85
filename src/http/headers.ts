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

/**
 * The headers as a plain object with lower-case names, a repeated header's values joined with
 * ", ": node's header object, any plain object, or a Fetch `Headers` (read with `forEach`). An
 * object with `get` alone cannot be listed, so it gives an empty object.
 */
export function headerRecord(headers: HeadersInput): Record<string, string> {
  const record: Record<string, string> = {};
  if (typeof headers.get === 'function') {
    const iterable = headers as { forEach?: (callback: (value: string, name: string) => void) => void };
    if (typeof iterable.forEach === 'function') iterable.forEach((value, name) => (record[name.toLowerCase()] = value));
    return record;
  }
  for (const [name, value] of Object.entries(headers as Readonly<Record<string, string | readonly string[] | undefined>>)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : (value as string);
    const key = name.toLowerCase();
    record[key] = Object.hasOwn(record, key) ? `${record[key]}, ${text}` : text;
  }
  return record;
}
