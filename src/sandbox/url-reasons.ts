import type { InvalidUrlError } from '../dispatcher/errors.js';

/** Over this many characters a webhook URL is refused (the Dispatcher's rule). */
const MAX_URL_LENGTH = 2048;

/**
 * The Dispatcher's refusal of a webhook URL as the sandbox's `reason`: a predicate that reads as
 * a sentence after the field's name ("url must use https, not ftp:"), saying what is wrong with
 * the value given.
 */
export function urlReason(error: InvalidUrlError, input: string): string {
  const url = URL.canParse(input) ? new URL(input) : null;
  const host = url?.hostname ?? '';
  const address = typeof error.details.address === 'string' ? error.details.address : null;
  switch (error.details.reason) {
    case 'invalid_url':
      return input.length > MAX_URL_LENGTH ? `must be at most ${MAX_URL_LENGTH} characters long, not ${input.length}` : 'must be an absolute URL, such as https://receiver.example/webhooks';
    case 'unsupported_protocol':
      return `must use https, not ${url?.protocol ?? 'this scheme'}`;
    case 'https_required':
      return `must use https: plain http is allowed only to localhost, 127.0.0.1 or [::1], not to ${host}`;
    case 'credentials_in_url':
      return 'must not contain credentials (user:password@); send them in a custom header';
    case 'unusual_ip_notation':
      return `must write an IP address as a.b.c.d (the host given means ${host})`;
    case 'unresolvable_host':
      return `must name a host that resolves; ${host} does not`;
    default: {
      const category = error.details.reason.replace(/_address$/, '').replace('_', '-');
      const where = address === null || address === host.replace(/^\[|\]$/g, '') ? (address ?? host) : `${host} (${address})`;
      return `must reach the public internet, or plain http to localhost, 127.0.0.1 or [::1]; ${where} is a ${category} address`;
    }
  }
}
