import { contained } from '../kernel/contained.js';
import { newId } from '../kernel/ids.js';
import type { Logger } from '../logging/logger.js';
import { signPayload } from '../signing/signature.js';
import { USER_AGENT } from './dispatcher-defaults.js';
import type { HttpSender } from './sender.js';
import type { AttemptErrorKind } from '../ports/dispatch-statuses.js';
import type { HealthAlert, RecordedAttempt } from '../ports/dispatch-store.js';
import { isoString } from '../kernel/iso-string.js';

/**
 * A webhook that has been failing for a while (`webhook.failing`, at each warning share of the
 * stretch) or that the dispatcher has just disabled for failing (`webhook.disabled`). Given to
 * `onWebhookAlert`, logged, and sent to `alertWebhook` as the `data` of a signed alert.
 */
export interface WebhookAlert {
  type: 'webhook.failing' | 'webhook.disabled';
  webhook_id: string;
  url: string;
  /** Failed attempts in a row. */
  failure_streak: number;
  /** The first failed attempt of the streak. */
  failing_since: string;
  /** The failed attempt that raised the alert. */
  last_failure_at: string;
  /** `webhook.failing`: the share of the stretch reached (0.5, 0.9); `null` for `webhook.disabled`. */
  threshold: number | null;
  /** `webhook.failing`: when the webhook will be disabled if nothing is delivered before; `null` for `webhook.disabled`. */
  disables_at: string | null;
  /** `webhook.disabled`: when it was disabled; `null` for `webhook.failing`. */
  disabled_at: string | null;
  /** How the attempt that raised the alert failed. */
  error_kind: AttemptErrorKind | null;
  response_status: number | null;
}

/** The body of an alert sent to `alertWebhook`: an envelope like an event's, the alert as `data`. */
export interface AlertPayload {
  /** `alrt_…` */
  id: string;
  type: WebhookAlert['type'];
  created: string;
  data: Omit<WebhookAlert, 'type'>;
}

export interface AlertReporterOptions {
  logger: Logger;
  logging: boolean;
  onWebhookAlert: ((alert: WebhookAlert) => void) | undefined;
  alertWebhook: { url: string; secret: string } | undefined;
  sender: HttpSender;
  clock: () => number;
  /** The alert's `x-svc-timestamp`, as for deliveries. */
  signingClock: () => number;
  disableAfterMs: number | null;
  /** Keeps an alert being sent in flight, so that close() waits for it. */
  track: (work: Promise<unknown>) => void;
}

/** Reports the alerts of each recorded attempt: the log line, the hook and the operator's webhook. */
export function alertReporter(options: AlertReporterOptions): (recorded: RecordedAttempt) => void {
  return (recorded) => {
    for (const health of recorded.alerts) {
      const alert = alertOf(recorded, health, options.disableAfterMs);
      if (options.logging) contained(() => logAlert(options.logger, alert));
      const hook = options.onWebhookAlert;
      if (hook !== undefined) contained(() => hook(alert), (error) => options.logger.error({ err: error }, 'The onWebhookAlert hook threw; nothing changes'));
      if (options.alertWebhook !== undefined) options.track(sendAlert(options, options.alertWebhook, alert));
    }
  };
}

function alertOf({ attempt, health }: RecordedAttempt, alert: HealthAlert, disableAfterMs: number | null): WebhookAlert {
  const failingSince = health.failing_since ?? attempt.attempted_at;
  const failing = alert.kind === 'failing';
  return {
    type: failing ? 'webhook.failing' : 'webhook.disabled',
    webhook_id: attempt.webhook_id,
    url: attempt.url,
    failure_streak: health.failure_streak,
    failing_since: isoString(failingSince),
    last_failure_at: isoString(attempt.attempted_at),
    threshold: failing ? alert.threshold : null,
    disables_at: failing && disableAfterMs !== null ? isoString(failingSince + disableAfterMs) : null,
    disabled_at: failing || health.disabled_at === null ? null : isoString(health.disabled_at),
    error_kind: attempt.error_kind,
    response_status: attempt.response_status,
  };
}

function logAlert(logger: Logger, alert: WebhookAlert): void {
  if (alert.type === 'webhook.failing') logger.warn(alert, 'webhook failing; it will be disabled if nothing is delivered before disables_at');
  else logger.error(alert, 'webhook disabled after failing; new events are recorded as skipped until it is enabled');
}

/** One signed POST; a failure is logged, never retried (the hook and the log are the channels that cannot fail). */
async function sendAlert(options: AlertReporterOptions, target: { url: string; secret: string }, alert: WebhookAlert): Promise<void> {
  const { type, ...data } = alert;
  const now = options.clock();
  const payload: AlertPayload = { id: newId('alrt'), type, created: isoString(now), data };
  const body = JSON.stringify(payload);
  const signed = signPayload({ payload: body, secret: target.secret, timestamp: Math.floor(options.signingClock() / 1000) });
  const result = await options.sender.send({ url: target.url, body, headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signed.headers } });
  if (result.error_kind !== null) {
    options.logger.warn({ alert_id: payload.id, type, webhook_id: alert.webhook_id, error_kind: result.error_kind, status: result.response_status }, 'the alert webhook could not be delivered');
  }
}
