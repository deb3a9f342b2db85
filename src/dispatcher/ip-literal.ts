import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** An IP address read by ipaddr.js. */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * The well-known NAT64 prefix (RFC 6052), whose last 32 bits are the IPv4 address. ipaddr.js
 * names it and the local-use prefix 64:ff9b:1::/48 alike (`rfc6052`); only this one says where
 * the IPv4 address sits.
 */
const NAT64_WELL_KNOWN_PREFIX = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Reads an IP literal as Node's sockets read one: what `net.isIP` accepts (dotted-quad IPv4,
 * IPv6 with an optional zone id). `null` for anything else.
 *
 * Node decides, not ipaddr.js, because ipaddr.js also reads `0x7f.1` or `2130706433` as
 * addresses, which Node hands to a resolver as host names; the URL rules refuse those notations
 * on their own (`unusual_ip_notation`).
 *
 * @example
 * parseIpLiteral('fe80::1%eth0')?.toString(); // 'fe80::1'
 * parseIpLiteral('0x7f.0.0.1');               // null
 */
export function parseIpLiteral(text: string): IpAddress | null {
  const family = isIP(text);
  if (family === 0) return null;
  // A zone id says which interface, not which address; ipaddr.js accepts fewer spellings of it.
  const [address = ''] = text.split('%');
  try {
    return ipaddr.parse(family === 6 ? hexGroups(address) : address);
  } catch {
    return null;
  }
}

/**
 * An IPv6 address written in hex groups only. ipaddr.js reads the deprecated IPv4-compatible
 * `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`, which a socket treats as another address;
 * the URL serializer writes every IPv6 form as the hex groups the socket uses.
 */
function hexGroups(ipv6: string): string {
  return new URL(`http://[${ipv6}]`).hostname.slice(1, -1);
}

/**
 * The IPv4 address an IPv6 address stands for: IPv4-mapped (`::ffff:10.0.0.1`), well-known
 * NAT64 (`64:ff9b::a00:1`) or 6to4 (`2002:a00:1::`). A packet to such an address ends up at that
 * IPv4 address, so that is the address the rules judge. `null` otherwise.
 */
export function carriedIPv4(address: IpAddress): ipaddr.IPv4 | null {
  if (!(address instanceof ipaddr.IPv6)) return null;
  const bytes = address.toByteArray();
  switch (address.range()) {
    case 'ipv4Mapped':
      return address.toIPv4Address();
    case 'rfc6052':
      return address.match(NAT64_WELL_KNOWN_PREFIX) ? new ipaddr.IPv4(bytes.slice(12, 16)) : null;
    case '6to4':
      return new ipaddr.IPv4(bytes.slice(2, 6));
    default:
      return null;
  }
}

/** A URL's host without the brackets of an IPv6 literal: `[::1]` → `::1`. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}
