import { newId } from '../kernel/ids.js';
import { USER_AGENT } from './dispatcher-defaults.js';
import { recordingOf } from './attempt-recording.js';
import { afterAttempt } from './schedule.js';
import { signatureHeaders } from './request-signing.js';
import type { HttpSender } from './sender.js';
import type { DeliveryJob, DispatchStore, RecordedAttempt } from '../ports/dispatch-store.js';
import type { FailurePolicy } from './webhook-health.js';

export interface AttemptRunnerOptions {
  store: DispatchStore;
  sender: HttpSender;
  clock: () => number;
  /** The time `x-svc-timestamp` is read from: the receiver's freshness window is measured against it. */
  signingClock: () => number;
  schedule: readonly number[];
  /** When a failing webhook is warned about and disabled. */
  policy: FailurePolicy;
  /** Tells the log and the `onAttempt` hook about each recorded attempt. */
  report: (recorded: RecordedAttempt) => void;
  /** This dispatcher's lease owner id. */
  owner: string;
}

/**
 * One attempt of one delivery, start to record: sign by the webhook's scheme with its current
 * secret (and a rotation grace's previous one) at send time (the timestamp from the signing
 * clock, the attempt's time from the clock), POST, then
 * record the log row and the delivery's next state in one transaction.
 */
export class AttemptRunner {
  constructor(private readonly options: AttemptRunnerOptions) {}

  async run(job: DeliveryJob, { manual }: { manual: boolean }): Promise<RecordedAttempt> {
    const { clock, signingClock, sender, store, schedule, owner } = this.options;
    const startedAt = clock();
    const result = await sender.send({ url: job.webhook.url, body: job.event.payload, headers: requestHeaders(job, signingClock(), startedAt) });
    const attempt = {
      id: newId('att'),
      delivery_id: job.delivery.id,
      webhook_id: job.webhook.id,
      url: job.webhook.url,
      event_id: job.event.id,
      event_type: job.event.type,
      attempted_at: startedAt,
      correlation_id: job.event.correlation_id,
      request_payload: job.event.payload,
      manual,
      test: job.event.test,
      ...result,
    };
    const transition = afterAttempt({ delivered: result.error_kind === null, manual, leaseOwner: owner, startedAt, schedule });
    const recorded = await store.recordAttempt(job.delivery.id, recordingOf(attempt, transition, this.options.policy));
    this.options.report(recorded);
    return recorded;
  }
}

/** Custom headers first, so that nothing the dispatcher sets can be replaced by them. */
function requestHeaders(job: DeliveryJob, signedAt: number, now: number): Record<string, string> {
  return {
    ...job.webhook.headers,
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    ...signatureHeaders(job.webhook, job.event.id, job.event.payload, signedAt, now),
  };
}
