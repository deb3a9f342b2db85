import type { AcctWebhookError } from '../kernel/errors.js';

/**
 * What the person at the browser does after a refused page or action, by the refusal's code: the
 * one sentence a refusal page shows under the error. Codes without a sentence of their own get
 * {@link DEFAULT_NEXT_STEP}.
 */
const NEXT_STEPS: Readonly<Record<string, string>> = {
  CSRF_TOKEN_INVALID: 'Nothing was changed. Go back, reload the page (so that its form gets a fresh token) and submit it again. A form sent from another site is never accepted.',
  NOT_FOUND: 'It may have been deleted or purged, or the link is mistyped. Go back to the list it came from and open it from there.',
  METHOD_NOT_ALLOWED: 'Use the page\u2019s own buttons and links: actions are forms that post, pages are links.',
  PAYLOAD_TOO_LARGE: 'Nothing was changed. Shorten what you entered (forms are at most 64 KiB) and submit it again.',
  VALIDATION_ERROR: 'Nothing was changed. Go back, correct the value the message names, and submit the form again.',
  RATE_LIMIT_EXCEEDED: 'Nothing more was retried. Wait until the window the message names frees up, then retry again.',
  NOT_RETRYABLE: 'Nothing was changed. Reload the event\u2019s page to see where it stands now.',
  DISPATCHER_CLOSED: 'The dispatcher of this process is shutting down. Try again once the application has restarted.',
};

/** What a refusal page says when the code has no sentence of its own. */
export const DEFAULT_NEXT_STEP = 'Nothing was changed. Go back and check what you entered, or start again from the overview.';

/** The next step for a refusal with this error. */
export function nextStepFor(error: Pick<AcctWebhookError, 'code'>): string {
  return NEXT_STEPS[error.code] ?? DEFAULT_NEXT_STEP;
}
