/** `HH:MM:SS` in local time: for lines printed as things happen. */
export function clockTime(ms: number): string {
  const date = new Date(ms);
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

/** `2026-11-22T09:00:00.000Z` → `2026-11-22 09:00:00` (UTC, as the delivery log stores it): for tables. */
export function tableTime(iso: string | null): string {
  return iso === null ? '-' : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}
