/** Milliseconds since the epoch as the ISO 8601 string every record and payload carries (`2026-01-05T09:30:00.000Z`). */
export function isoString(ms: number): string {
  return new Date(ms).toISOString();
}
