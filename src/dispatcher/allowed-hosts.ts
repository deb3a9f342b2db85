import ipaddr from 'ipaddr.js';
import { ConfigurationError } from '../kernel/errors.js';
import { bareHost, carriedIPv4, parseIpLiteral, type IpAddress } from './ip-literal.js';

/** A host name of letters, digits and inner hyphens, in dot-separated labels. */
const HOST_NAME = /^[a-z\d]([a-z\d-]*[a-z\d])?(\.[a-z\d]([a-z\d-]*[a-z\d])?)*$/;

type AddressRange = [network: IpAddress, prefixLength: number];

/**
 * The `allowedHosts` option: host names, IP addresses and CIDR ranges a webhook may reach
 * although they are outside the public internet. Addresses follow the URL rules (a.b.c.d, IPv6
 * with or without brackets); ipaddr.js reads the ranges.
 */
export class AllowedHosts {
  private readonly names = new Set<string>();
  private readonly ranges: AddressRange[] = [];

  /** @throws ConfigurationError for an entry that is neither a host name, an IP address nor a CIDR range. */
  constructor(entries: readonly string[]) {
    for (const entry of entries) this.add(entry);
  }

  /** Whether a host, as in a URL, is listed by name. */
  hasName(hostname: string): boolean {
    return this.names.has(bareHost(hostname));
  }

  /** Whether an address lies in a listed address or range, directly or through the IPv4 address it carries. */
  coversAddress(address: string): boolean {
    const parsed = parseIpLiteral(address);
    if (parsed === null) return false;
    const forms = [parsed, carriedIPv4(parsed)].filter((form) => form !== null);
    return forms.some((form) => this.ranges.some(([network, prefixLength]) => form.kind() === network.kind() && form.match(network, prefixLength)));
  }

  private add(entry: string): void {
    if (typeof entry !== 'string' || entry.trim() === '') throw invalidEntry(entry);
    const text = entry.trim().toLowerCase();
    const [network = '', ...prefix] = text.split('/');
    const host = bareHost(network);
    const address = parseIpLiteral(host);
    if (prefix.length > 0) {
      // The address part must be one the URL rules accept; parseCIDR checks the prefix length for its family.
      if (address === null) throw invalidEntry(entry);
      this.ranges.push(parseRange(`${address.toNormalizedString()}/${prefix.join('/')}`, entry));
    } else if (address !== null) {
      this.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (HOST_NAME.test(host)) {
      this.names.add(host);
    } else {
      throw invalidEntry(entry);
    }
  }
}

function parseRange(cidr: string, entry: string): AddressRange {
  try {
    return ipaddr.parseCIDR(cidr);
  } catch {
    throw invalidEntry(entry);
  }
}

function invalidEntry(entry: string): ConfigurationError {
  const reason = `"${entry}" is not a host name, an IP address or a CIDR range (10.0.0.0/8)`;
  return new ConfigurationError({ option: 'allowedHosts', reason }, `allowedHosts: ${reason}`);
}
