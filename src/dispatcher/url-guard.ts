import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, isIPv4, type LookupFunction } from 'node:net';
import { classifyAddress } from './address-ranges.js';
import { AllowedHosts } from './allowed-hosts.js';
import { InvalidUrlError, type UrlRefusalReason } from './errors.js';
import { bareHost } from './ip-literal.js';

/**
 * Resolves a host name to its IP addresses. The dispatcher resolves through this function both
 * when a URL is registered and when a socket connects, so tests can inject one and no name is
 * ever looked up behind the guard's back.
 */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

/** The system resolver (`dns.lookup`, all addresses): what Node would use to connect. */
export const resolveWithSystem: ResolveHost = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** Hosts a development switch may send to in plain http, written exactly so. */
const LOCAL_DEVELOPMENT_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_URL_LENGTH = 2048;
/** The host as typed: after `scheme://` and any `user@`, up to the port or path. */
const RAW_HOST = /^[a-z][a-z\d+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i;

export interface UrlGuardOptions {
  allowInsecureUrls: boolean;
  allowedHosts: readonly string[];
  resolveHost: ResolveHost;
}

export interface UrlRefusal {
  reason: UrlRefusalReason;
  message: string;
  address?: string;
}

/** The error a guarded lookup hands to the socket; the sender reports it as `ssrf`. */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_ACCT_WEBHOOK_REFUSED_ADDRESS';

  constructor(readonly refusal: UrlRefusal) {
    super(refusal.message);
  }
}

/**
 * The URL rules of a webhook, applied when it is registered and again before every connection.
 * https only; plain http only with `allowInsecureUrls` to `localhost`, `127.0.0.1` or `[::1]`;
 * no credentials; no address outside the public internet unless `allowedHosts` names it.
 */
export class UrlGuard {
  private readonly allowedHosts: AllowedHosts;

  /** @throws ConfigurationError for an `allowedHosts` entry that is neither a host name, an IP nor a CIDR range. */
  constructor(private readonly options: UrlGuardOptions) {
    this.allowedHosts = new AllowedHosts(options.allowedHosts);
  }

  /**
   * Checks a URL for registration, resolving its host. Returns the normalised URL.
   * @throws InvalidUrlError with `details.field = 'url'` and a `reason`.
   */
  async check(input: unknown): Promise<string> {
    const url = parseUrl(input);
    const refusal = this.staticRefusal(url, rawHost(input as string)) ?? (await this.addressRefusal(url));
    if (refusal) throw new InvalidUrlError(refusal.reason, refusal.message, refusal.address ? { address: refusal.address } : {});
    return url.href;
  }

  /**
   * The checks that need no name resolution, for a stored URL about to be sent to: the protocol
   * rule (the switch may have changed since registration) and a host that is an IP literal,
   * which Node connects to without calling `lookup`.
   */
  refusalBeforeConnect(url: URL): UrlRefusal | null {
    const refusal = this.staticRefusal(url, url.hostname);
    if (refusal) return refusal;
    const host = bareHost(url.hostname);
    return isIP(host) ? this.addressRefusalFor(url.hostname, host) : null;
  }

  /**
   * A `lookup` for `net.connect`: resolves with {@link ResolveHost} and fails the connection
   * before it is made when any address is refused, so a name that resolved to a public address
   * at registration and to a private one now (DNS rebinding) is still refused.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.connectableAddresses(hostname, options.family).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

  private async connectableAddresses(hostname: string, family: number | string | undefined): Promise<LookupAddress[]> {
    const addresses = await this.options.resolveHost(hostname);
    for (const address of addresses) {
      const refusal = this.addressRefusalFor(hostname, address);
      if (refusal) throw new RefusedAddressError(refusal);
    }
    const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
    const usable = addresses.map((address) => ({ address, family: isIP(address) })).filter((a) => wanted === 0 || a.family === wanted);
    if (usable.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return usable;
  }

  private staticRefusal(url: URL, typedHost: string | null): UrlRefusal | null {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      return { reason: 'unsupported_protocol', message: `Webhook URLs must use https, not ${url.protocol}` };
    }
    if (url.username !== '' || url.password !== '') {
      return { reason: 'credentials_in_url', message: 'Webhook URLs may not contain credentials (user:password@); use a custom header' };
    }
    if (isIPv4(url.hostname) && typedHost !== url.hostname) {
      return {
        reason: 'unusual_ip_notation',
        message: `The host "${typedHost ?? '?'}" is an IP address in an unusual notation (it means ${url.hostname}); write addresses as a.b.c.d`,
      };
    }
    if (url.protocol === 'http:' && !this.isDevelopmentHost(typedHost)) {
      return {
        reason: 'https_required',
        message: this.options.allowInsecureUrls
          ? 'Plain http is allowed only to localhost, 127.0.0.1 or [::1]; use https'
          : 'Webhook URLs must use https (plain http to localhost needs the allowInsecureUrls switch)',
      };
    }
    return null;
  }

  private async addressRefusal(url: URL): Promise<UrlRefusal | null> {
    const host = bareHost(url.hostname);
    if (isIP(host)) return this.addressRefusalFor(url.hostname, host);
    if (this.allowedHosts.hasName(host)) return null;
    let addresses: readonly string[];
    try {
      addresses = await this.options.resolveHost(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      return { reason: 'unresolvable_host', message: `The host "${host}" does not resolve (${code})` };
    }
    if (addresses.length === 0) return { reason: 'unresolvable_host', message: `The host "${host}" has no addresses` };
    for (const address of addresses) {
      const refusal = this.addressRefusalFor(url.hostname, address);
      if (refusal) return refusal;
    }
    return null;
  }

  /** Whether `hostname` (as in a URL) may be reached at `address`. */
  private addressRefusalFor(hostname: string, address: string): UrlRefusal | null {
    if (this.allowedHosts.hasName(hostname) || this.allowedHosts.coversAddress(address)) return null;
    const category = classifyAddress(address);
    if (category === null) return null;
    if (category === 'loopback' && this.isDevelopmentHost(hostname)) return null;
    const reason = `${category}_address` as const;
    const shown = bareHost(hostname) === address ? address : `"${bareHost(hostname)}" resolves to ${address}`;
    return {
      reason,
      address,
      message: `${shown} is a ${category.replace('_', '-')} address; webhooks may only reach the public internet (allowedHosts lists exceptions)`,
    };
  }

  private isDevelopmentHost(typedHost: string | null): boolean {
    return this.options.allowInsecureUrls && typedHost !== null && LOCAL_DEVELOPMENT_HOSTS.has(typedHost);
  }
}

function parseUrl(input: unknown): URL {
  if (typeof input !== 'string' || input.length === 0) {
    throw new InvalidUrlError('invalid_url', 'The webhook URL must be a non-empty string');
  }
  if (input.length > MAX_URL_LENGTH) {
    throw new InvalidUrlError('invalid_url', `The webhook URL is longer than ${MAX_URL_LENGTH} characters`);
  }
  // URL.canParse rather than URL.parse: the package supports Node 20.12, which lacks the latter.
  if (!URL.canParse(input)) throw new InvalidUrlError('invalid_url', 'The webhook URL is not a valid absolute URL');
  return new URL(input);
}

function rawHost(input: string): string | null {
  const host = RAW_HOST.exec(input)?.[1];
  return host === undefined ? null : host.toLowerCase();
}
