import type { IdempotencyStore } from 'acct-webhook';

/** Answers 200 while the process is up: for a liveness probe (restart the process when it fails). */
export const HEALTH_PATH = '/health';
/** Answers 200 when the store answers, else 503: for a readiness probe (send no traffic meanwhile). */
export const READY_PATH = '/ready';
/** How long the readiness check waits for the store before it answers 503. */
export const READINESS_TIMEOUT_MS = 2_000;

/** What a check answers: the status code and a JSON body. */
export interface CheckAnswer {
  status: 200 | 503;
  body: { status: 'ok' } | { status: 'unavailable'; reason: string };
}

/** `GET /health`: the process is up and serves requests. Nothing else is checked. */
export function health(): CheckAnswer {
  return { status: 200, body: { status: 'ok' } };
}

/**
 * `GET /ready`: the store answers a read (for PostgreSQL, a query on the server: a database
 * that went away makes the instance unready). A read of an id that is never stored, so nothing
 * is written.
 */
export async function readiness(store: IdempotencyStore, timeoutMs = READINESS_TIMEOUT_MS): Promise<CheckAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the store did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([store.ready().then(() => store.quarantine.get('readiness-check')), timeout]);
    return { status: 200, body: { status: 'ok' } };
  } catch (error) {
    return { status: 503, body: { status: 'unavailable', reason: error instanceof Error ? error.message || error.name : String(error) } };
  } finally {
    clearTimeout(timer);
  }
}
