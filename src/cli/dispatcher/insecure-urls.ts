import { InvalidUrlError } from '../../dispatcher/errors.js';
import type { Dispatcher } from '../../platform/node-dispatcher.js';
import { UrlGuard } from '../../dispatcher/url-guard.js';

/** The CLI's spelling of the dispatcher's `allowInsecureUrls` development switch. */
export const ALLOW_INSECURE_URLS_FLAG = '--allow-insecure-urls';

/** The hosts the switch opens to plain http, as a URL spells them. */
const DEVELOPMENT_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The rule, in the CLI's words: the library's message names its option, which a CLI user never sees. */
const HTTPS_REQUIRED = `Webhook URLs must use https; plain http only to localhost, 127.0.0.1 or [::1], and only with ${ALLOW_INSECURE_URLS_FLAG} (development)`;

/**
 * A refusal of `url` that the switch would lift: a URL to this machine (http, or https to a
 * loopback name) while the switch is off. Named with the flag, so the fix is in the message.
 */
function needsTheFlag(url: string): InvalidUrlError {
  return new InvalidUrlError('https_required', `${url} is on this machine: sending to it needs ${ALLOW_INSECURE_URLS_FLAG} (development only)`, {
    option: ALLOW_INSECURE_URLS_FLAG,
  });
}

function isDevelopmentUrl(url: URL): boolean {
  return DEVELOPMENT_HOSTS.has(url.hostname);
}

/**
 * The dispatcher's refusal of a URL given on the command line (`webhooks add/update --url`), with
 * a message that names the CLI's flag instead of the library's option. Anything else is returned
 * as it was.
 */
export function inCliWords(error: unknown, url: string | undefined, allowInsecureUrls: boolean): unknown {
  if (!(error instanceof InvalidUrlError) || url === undefined || !URL.canParse(url)) return error;
  const reason = error.details.reason;
  if (!allowInsecureUrls && isDevelopmentUrl(new URL(url)) && (reason === 'https_required' || reason === 'loopback_address')) return needsTheFlag(url);
  if (reason === 'https_required') return new InvalidUrlError(reason, HTTPS_REQUIRED);
  return error;
}

/**
 * Why an attempt to `url` would be refused by the dispatcher's guard without a connection being
 * tried — which the dispatcher records as an `ssrf` attempt. Checked before a manual retry and
 * before `run` starts, so that a forgotten flag costs no attempt of the schedule.
 */
export function refusalBeforeAttempt(url: string, allowInsecureUrls: boolean): InvalidUrlError | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (!allowInsecureUrls && isDevelopmentUrl(parsed)) return needsTheFlag(url);
  // No name is resolved here: only the rules that need none (protocol, an address written as an IP).
  const guard = new UrlGuard({ allowInsecureUrls, allowedHosts: [], resolveHost: () => Promise.resolve([]) });
  const refusal = guard.refusalBeforeConnect(parsed);
  if (refusal === null) return undefined;
  const message = refusal.reason === 'https_required' ? HTTPS_REQUIRED : refusal.message;
  return new InvalidUrlError(refusal.reason, message, refusal.address === undefined ? {} : { address: refusal.address });
}

/** Refuses a manual retry of `deliveryId` whose webhook's URL would be refused (see {@link refusalBeforeAttempt}). */
export async function checkRetryTarget(dispatcher: Dispatcher, deliveryId: string, allowInsecureUrls: boolean): Promise<void> {
  const delivery = await dispatcher.deliveries.get(deliveryId);
  const webhook = (await dispatcher.webhooks.list()).find((registration) => registration.id === delivery.webhook_id);
  // A deleted webhook: the dispatcher's own retry says what happens then.
  if (webhook === undefined) return;
  const refusal = refusalBeforeAttempt(webhook.url, allowInsecureUrls);
  if (refusal !== undefined) throw refusal;
}

/** Refuses to start `run` while an active webhook's URL would be refused on every attempt. */
export async function checkRunTargets(dispatcher: Dispatcher, allowInsecureUrls: boolean): Promise<void> {
  for (const webhook of await dispatcher.webhooks.list()) {
    if (webhook.status !== 'active') continue;
    const refusal = refusalBeforeAttempt(webhook.url, allowInsecureUrls);
    if (refusal !== undefined) {
      throw new InvalidUrlError(refusal.details.reason, `${webhook.id}: ${refusal.message}; every attempt to it would fail`, { ...refusal.details, webhook_id: webhook.id });
    }
  }
}
