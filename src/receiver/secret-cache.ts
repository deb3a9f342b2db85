/**
 * A map with a bound on its entries and on their age: at most `maxEntries`, the least recently
 * used dropped first when a new one comes in, and an entry older than `ttlMs` (on the receiver's
 * clock) is gone when next read. What the receiver keeps of a secret function's answers.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly clock: () => number,
  ) {}

  /** How many entries are kept now (expired ones not read since included). */
  get size(): number {
    return this.entries.size;
  }

  /** The value under `key` if it is there and not expired; a hit becomes the most recently used. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.clock()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` under `key` for `ttlMs`, dropping the least recently used entry when full. */
  set(key: string, value: V): void {
    this.entries.delete(key);
    if (this.maxEntries <= 0) return;
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt: this.clock() + this.ttlMs });
  }
}
