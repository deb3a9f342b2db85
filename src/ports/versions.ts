/**
 * Where one event stands in its object's history, for the ordering guard. Events are ordered by
 * `created`, then by `rank` (the type's stage in its object's life, from the event catalog:
 * `invoice.created` 0 < `invoice.sent` 1 < `invoice.overdue` 2 < `invoice.paid` 3, for two events
 * of one millisecond), then by `eventId` (so that the order is total and every process agrees on it).
 */
export interface ObjectVersion {
  /** The object the event is about: by default `invoice:inv_…`. */
  key: string;
  /** The event's `created`, in milliseconds since the epoch. */
  created: number;
  rank: number;
  eventId: string;
}

/** Negative when `a` is older than `b`, 0 for the same event, positive when newer. */
export function compareVersions(a: Omit<ObjectVersion, 'key'>, b: Omit<ObjectVersion, 'key'>): number {
  return a.created - b.created || a.rank - b.rank || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);
}

/** What the completion of an event records besides "handled". */
export interface CompleteOptions {
  /** With the ordering guard: the event's place in its object's history, kept if it is the newest. */
  version?: ObjectVersion | undefined;
}

/** The newest handled event per object: what the ordering guard compares an arriving event with. */
export interface ObjectVersions {
  /** The newest event handled for `key`, if any (kept as long as the idempotency records). */
  newest(key: string): Promise<ObjectVersion | undefined>;
}
