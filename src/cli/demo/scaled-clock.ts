/**
 * A clock that runs `scale` times faster than `now` from the moment it is made. The demo gives the
 * same clock to the dispatcher (waits, x-svc-timestamp) and to the receiver (the 300 s window,
 * leases): with two different clocks the signatures would look minutes old.
 */
export function scaledClock(scale: number, now: () => number = Date.now): () => number {
  const start = now();
  return () => start + Math.floor((now() - start) * scale);
}
