/*
 * PostgreSQL `text` cannot hold U+0000, and pg writes an unpaired surrogate as U+FFFD, so two
 * different event ids could become one key. Strings from outside (event ids of signed payloads,
 * receivers' answers) may contain either. Such strings — and any that begin with the marker — are
 * stored as the marker followed by their JSON form (pure ASCII escapes), which round-trips
 * exactly; every other string is stored as it is, readable in psql.
 */

const MARKER = '\u0001';
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function encodeText(value: string): string {
  const storable = !value.startsWith(MARKER) && !value.includes('\u0000') && !UNPAIRED_SURROGATE.test(value);
  return storable ? value : `${MARKER}${JSON.stringify(value)}`;
}

export function decodeText(stored: string): string {
  return stored.startsWith(MARKER) ? (JSON.parse(stored.slice(MARKER.length)) as string) : stored;
}

export function encodeNullableText(value: string | null): string | null {
  return value === null ? null : encodeText(value);
}

export function decodeNullableText(stored: string | null): string | null {
  return stored === null ? null : decodeText(stored);
}
