import type { WebhookEvent } from '../events/schemas.js';
import { StoreUnavailableError } from '../kernel/store-unavailable.js';
import { acknowledged, acknowledgedEvent, failed, type WebhookResponse } from './answers.js';
import type { HandlerRun } from './context.js';
import { ReceiverError, WebhookHandlerError } from './errors.js';
import type { Inbound } from './inbound.js';
import { aboutEvent } from './outcome.js';
import type { Logger } from '../logging/logger.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import type { Reporter } from './report.js';
import type { Webhooks } from './webhooks.js';

/** What the run step uses: the handlers and their budget, the store that records the event, the report. */
export interface RunSettings extends FailureReportSettings {
  handlerTimeoutMs: number;
  store: Pick<IdempotencyStore, 'complete' | 'completeAtomically' | 'release'>;
  clock: () => number;
  report: Reporter;
}

/** What reporting a handler failure uses: the `onError` handlers, and the logger for what they throw. */
export interface FailureReportSettings {
  handlers: Webhooks;
  logger: Logger;
}

type BudgetResult = { results: unknown[] } | { error: WebhookHandlerError } | 'timeout';

/**
 * Runs a claimed event's handlers within the budget, then records the event as handled (with
 * its atomic effects) or gives the claim back, and answers: 200, 500 (a handler failed; the
 * sender retries) or 503 (out of time; the sender retries).
 */
export async function runHandlers(
  settings: RunSettings,
  event: WebhookEvent,
  token: string,
  inbound: Inbound,
  run: HandlerRun,
): Promise<WebhookResponse> {
  const { handlerTimeoutMs, store, report } = settings;
  const { finish } = report;
  const started = performance.now();
  const work = settings.handlers.run(event, run.context);
  // Handlers that returned plain values are done: nothing to time, nothing to wait for.
  const result = Array.isArray(work) ? { results: work } : await withinBudget(work, handlerTimeoutMs);

  if (result === 'timeout') {
    const error = new ReceiverError('HANDLER_TIMEOUT', `The handlers did not finish within ${handlerTimeoutMs} ms; retry later`, {
      event_id: event.id,
      handler_timeout_ms: handlerTimeoutMs,
    });
    run.abort.abort(error);
    await store.release(event.id, token).catch(() => false);
    finishLate(settings, work as Promise<unknown[]>, event, token, run, started);
    return finish(failed(error), inbound, { ...aboutEvent(event), outcome: 'handler_timeout', code: error.code, error });
  }
  const failure = 'error' in result ? result.error : await complete(settings, event, token, run, started);
  if (failure && !(failure instanceof WebhookHandlerError)) {
    await store.release(event.id, token).catch(() => false);
    return finish(failed(failure), inbound, { ...aboutEvent(event), outcome: 'error', code: failure.code, error: failure });
  }
  if (failure) {
    await store.release(event.id, token).catch(() => false);
    await reportFailure(settings, failure, event, run);
    return finish(failed(failure), inbound, { ...aboutEvent(event), outcome: 'handler_failed', code: failure.code, error: failure });
  }
  const results = (result as { results: unknown[] }).results;
  if (run.context.stale) {
    const stale = { stale: true } as const;
    return finish(acknowledged({ id: event.id, type: event.type, duplicate: false, ...stale }), inbound, { ...aboutEvent(event), outcome: 'handled', results, ...stale });
  }
  // The common answer: nothing is built for a report nobody takes.
  const response = acknowledgedEvent(event, false);
  return report.reporting ? finish(response, inbound, { ...aboutEvent(event), outcome: 'handled', results }) : response;
}

/**
 * Records the event as handled. Without atomic effects a failing store is only logged: the
 * handlers' effects happened, and acknowledging keeps a retry from repeating them. With atomic
 * effects a failure means nothing was applied, so it is a failure of the delivery.
 */
async function complete(settings: RunSettings, event: WebhookEvent, token: string, run: HandlerRun, started: number): Promise<WebhookHandlerError | ReceiverError | undefined> {
  const { store, clock, logger } = settings;
  const { effects } = run;
  if (effects.length > 0) {
    try {
      // Effects that await (PostgreSQL) get what is left of the handler budget.
      const budgetMs = settings.handlerTimeoutMs - (performance.now() - started);
      const completed = await store.completeAtomically!(event.id, token, clock(), effects, { version: run.version, budgetMs });
      if (!completed) logger.warn(aboutEvent(event), 'The claim expired while the handlers ran; their atomic effects were not applied');
      return undefined;
    } catch (error) {
      // The connection broke under the transaction: nothing was applied, and no handler is at fault.
      if (error instanceof StoreUnavailableError) return new ReceiverError('STORE_UNAVAILABLE', 'The idempotency store is unavailable; retry later', {}, { cause: error });
      return new WebhookHandlerError([error], { event_id: event.id, type: event.type });
    }
  }
  let completed: boolean;
  try {
    completed = await store.complete(event.id, token, clock(), run.version ? { version: run.version } : undefined);
  } catch (error) {
    logger.error({ ...aboutEvent(event), err: error }, 'Could not record the event as handled');
    return undefined;
  }
  if (!completed) logger.warn(aboutEvent(event), 'The claim expired while the handlers ran; another delivery may have run them too');
  return undefined;
}

/** A handler that outlives its budget may still finish: record it so the retry sees a duplicate. */
function finishLate(settings: RunSettings, work: Promise<unknown>, event: WebhookEvent, token: string, run: HandlerRun, started: number): void {
  const { logger } = settings;
  const about = aboutEvent(event);
  work
    .then(
      async () => {
        const failure = await complete(settings, event, token, run, started);
        logger.warn({ ...about, completed: !failure }, 'A timed-out handler finished late');
      },
      (error: unknown) => logger.error({ ...about, err: error }, 'A timed-out handler failed late'),
    )
    .catch(() => undefined);
}

/** Gives a handler failure to the `onError` handlers; what they throw is logged. */
export async function reportFailure({ handlers, logger }: FailureReportSettings, error: WebhookHandlerError, event: WebhookEvent, run: HandlerRun): Promise<void> {
  const thrown = await handlers.reportError(error, event, run.context);
  for (const failure of thrown) logger.error({ eventId: event.id, err: failure }, 'An onError handler threw');
}

/** Waits for the handlers, up to the budget: their results, their failure, or 'timeout'. */
export function withinBudget(work: Promise<unknown[]>, budgetMs: number): Promise<BudgetResult> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), budgetMs);
    void work.then(
      (results) => {
        clearTimeout(timer);
        resolve({ results });
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ error: error instanceof WebhookHandlerError ? error : new WebhookHandlerError([error]) });
      },
    );
  });
}
