import { isAcctWebhookError, WebhookValidationError, WebhookVerificationError } from '../kernel/errors.js';
import { failed, type WebhookResponse } from './answers.js';
import { ReceiverError } from './errors.js';
import type { Inbound } from './inbound.js';
import { quarantine, type QuarantineSettings } from './quarantine.js';
import type { Reporter } from './report.js';

/** What the answer step uses: the quarantine for authentic payloads that do not validate, and the report. */
export interface AnswerErrorSettings {
  quarantine: QuarantineSettings;
  report: Reporter;
}

/**
 * The answer to a delivery that failed before its handlers ran: an authentic payload that does
 * not validate is quarantined (422, or 200 for an unknown type); a known error is answered with
 * its code's status; anything else is a 500 `INTERNAL_ERROR` (its cause is reported, never sent).
 */
export async function answerError({ quarantine: keeping, report }: AnswerErrorSettings, error: unknown, inbound: Inbound): Promise<WebhookResponse> {
  if (error instanceof WebhookValidationError && inbound.verified !== undefined) {
    const result = await quarantine(keeping, inbound.rawBody ?? '', error, inbound.receivedAt);
    return report.finish(result.response, inbound, result.fields);
  }
  const known = isAcctWebhookError(error) ? error : new ReceiverError('INTERNAL_ERROR', 'Unexpected receiver failure', {}, { cause: error });
  const response = failed(known);
  const serverSide = response.status >= 500;
  // The receiver's own failures (a bug, a secret lookup that failed) are errors; the rest refusals.
  const lookupFailed = known.code === 'SECRET_UNAVAILABLE';
  return report.finish(response, inbound, {
    outcome: known.code === 'INTERNAL_ERROR' || lookupFailed ? 'error' : 'rejected',
    code: known.code,
    // A lookup's failure names its problem (never a secret): the line says what to fix.
    ...(error instanceof WebhookVerificationError || !serverSide || lookupFailed ? { reason: known.message } : {}),
    ...(serverSide ? { error } : {}),
  });
}
