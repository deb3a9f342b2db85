import { contained } from '../kernel/contained.js';
import type { Logger } from '../logging/logger.js';
import type { WebhookResponse } from './answers.js';
import { lazyBuffer } from './context.js';
import type { Inbound } from './inbound.js';
import { logOutcome, type OutcomeFields, type ReceiveOutcome } from './outcome.js';

/** What the report of a delivery uses: where its log line goes, and the hook. */
export interface ReportSettings {
  logger: Logger;
  /** False when the logger option was `false`: no log line per delivery. */
  logging: boolean;
  onOutcome: ((outcome: ReceiveOutcome) => void) | undefined;
}

/** Reports a delivery (hook and log line) and returns its answer unchanged. */
export type Finish = (response: WebhookResponse, inbound: Inbound, fields: OutcomeFields) => WebhookResponse;

/** How the receiver's steps end a delivery. */
export interface Reporter {
  /** True when someone takes the report (the log line or `onOutcome`): without, none is built. */
  readonly reporting: boolean;
  readonly finish: Finish;
}

/** The report step: builds the outcome only when someone takes it. */
export function reporter({ logger, logging, onOutcome }: ReportSettings): Reporter {
  const reporting = logging || onOutcome !== undefined;
  // Reporting never changes an answer: a logger or a hook that throws is contained here.
  function report(outcome: ReceiveOutcome): void {
    if (logging) contained(() => logOutcome(logger, outcome));
    if (onOutcome === undefined) return;
    const hook = onOutcome;
    contained(
      () => hook(outcome),
      (error) => logger.error({ err: error }, 'The onOutcome hook threw; the answer is unchanged'),
    );
  }
  // Nothing is built for the report when nobody takes it: the hot path allocates nothing for it.
  function finish(response: WebhookResponse, inbound: Inbound, fields: OutcomeFields): WebhookResponse {
    if (reporting) report(outcomeOf(response, inbound, fields));
    return response;
  }
  return { reporting, finish };
}

function outcomeOf(response: WebhookResponse, inbound: Inbound, fields: OutcomeFields): ReceiveOutcome {
  const rawBody = lazyBuffer(inbound.rawBody);
  const caughtUp = inbound.via === 'catch_up';
  return {
    ...fields,
    ...(caughtUp ? { via: 'catch_up' as const, outcome: fields.outcome === 'handled' || fields.outcome === 'queued' ? 'caught_up' : fields.outcome } : {}),
    status: response.status,
    verified: caughtUp ? false : (fields.verified ?? inbound.verified !== undefined),
    duplicate: fields.duplicate ?? false,
    durationMs: Math.round((performance.now() - inbound.started) * 100) / 100,
    receivedAt: new Date(inbound.receivedAt),
    get rawBody() {
      return rawBody();
    },
  };
}
