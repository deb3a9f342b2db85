// Shared by the orchestrator and the dispatcher process of the fault-injection run.

/** The retry schedule runs this many times faster than real time: 34.6 h in about 42 s. */
export const TIME_SCALE = 3_000;
/** The sender's timeout, shortened; real milliseconds. */
export const DELIVERY_TIMEOUT_MS = 300;

export const DISPATCH_SETTINGS = {
  timeoutMs: DELIVERY_TIMEOUT_MS,
  // A claim must outlive an attempt in real time: (timeout + 1 s) on the compressed clock.
  leaseMs: (DELIVERY_TIMEOUT_MS + 1_000) * TIME_SCALE,
  concurrency: 20,
  allowInsecureUrls: true,
  pollIntervalMs: 20,
};

/** The compressed clock: real time since CHAOS_EPOCH, times TIME_SCALE. Same in every process. */
export function chaosClock(epoch = Number(process.env.CHAOS_EPOCH)) {
  return () => epoch + (Date.now() - epoch) * TIME_SCALE;
}

/** The modes whose handlers write through ctx.atomic: repeats must be 0, crash window included. */
export const ATOMIC_MODES = new Set(['atomic', 'inbox-atomic', 'pg-atomic', 'inbox-pg']);
/** The modes whose receivers keep store and tables in PostgreSQL. */
export const POSTGRES_MODES = new Set(['pg-atomic', 'inbox-pg']);
