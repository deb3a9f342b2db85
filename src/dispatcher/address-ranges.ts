import ipaddr from 'ipaddr.js';
import { carriedIPv4, parseIpLiteral, type IpAddress } from './ip-literal.js';

/**
 * Address ranges a webhook may not reach: everything that is not the public internet. A webhook
 * URL is chosen by whoever registers it, so without these rules the dispatcher becomes a way
 * into the platform's own network (SSRF), the cloud metadata service at 169.254.169.254 first.
 */
export type AddressCategory = 'unspecified' | 'loopback' | 'private' | 'link_local' | 'shared' | 'multicast' | 'reserved';

/**
 * What a range means for a webhook: the category it is refused as, `public`, or
 * `carried_ipv4` (judged by the IPv4 address the IPv6 address stands for).
 */
type RangeVerdict = AddressCategory | 'public' | 'carried_ipv4';

/** Range names ipaddr.js 2.5 returns that its type declarations leave out. */
type UndeclaredRangeName = 'deprecatedSiteLocal' | 'discard' | 'deprecatedOrchid' | 'segmentRouting';

/** Ranges ipaddr.js calls `unicast` (the public rest) that are not public. */
const SUPPLEMENTARY_RANGES = {
  // IPv4-compatible addresses (RFC 4291, deprecated): never routed. ipaddr.js names only :: and ::1 in it.
  ipv4Compatible: ipaddr.parseCIDR('::/96'),
  // The dummy IPv6 prefix of the IANA special-purpose registry: a placeholder that is not forwarded.
  dummyPrefix: ipaddr.parseCIDR('100:0:0:1::/64'),
};

type RangeName =
  | ReturnType<ipaddr.IPv4['range']>
  | ReturnType<ipaddr.IPv6['range']>
  | UndeclaredRangeName
  | keyof typeof SUPPLEMENTARY_RANGES;

/**
 * Every range name ipaddr.js gives (IPv4 and IPv6 share some names; their verdicts agree) and
 * what it means here. Ranges today's rules did not list are marked "added": each is refused,
 * because none of them holds a webhook receiver and refusing more is the safer mistake.
 */
const RANGE_VERDICTS: Readonly<Record<RangeName, RangeVerdict>> = {
  unicast: 'public',
  unspecified: 'unspecified', // 0.0.0.0/8, ::
  loopback: 'loopback', // 127.0.0.0/8, ::1
  private: 'private', // 10/8, 172.16/12, 192.168/16
  uniqueLocal: 'private', // fc00::/7
  deprecatedSiteLocal: 'private', // fec0::/10: the old IPv6 private range, still honoured by some stacks
  linkLocal: 'link_local', // 169.254/16 (cloud metadata), fe80::/10
  carrierGradeNat: 'shared', // 100.64/10
  multicast: 'multicast', // 224/4, ff00::/8
  broadcast: 'reserved', // 255.255.255.255, part of 240/4
  // 192.0.0/24, 192.0.2/24, 192.88.99/24, 198.18/15 (benchmarking), 198.51.100/24, 203.0.113/24,
  // 240/4; IPv6 2001::/23 (IETF assignments), 2001:db8::/32 and, added, 3fff::/20 (documentation).
  reserved: 'reserved',
  discard: 'reserved', // 100::/64
  teredo: 'reserved', // 2001::/32: a tunnel to a client behind NAT, not a server; obsolete
  benchmarking: 'reserved', // 2001:2::/48, lab networks
  deprecatedOrchid: 'reserved', // 2001:10::/28: identifiers, not routable
  orchid2: 'reserved', // 2001:20::/28: identifiers, not routable
  droneRemoteIdProtocolEntityTags: 'reserved', // 2001:30::/28: identifiers, not routable
  // Added: AS112 DNS sinks (192.175.48/24, 192.31.196/24, 2001:4:112::/48, 2620:4f:8000::/48) and
  // AMT relays (192.52.193/24, 2001:3::/32) are public anycast services, but single-purpose ones.
  as112: 'reserved',
  as112v6: 'reserved',
  amt: 'reserved',
  segmentRouting: 'reserved', // added: 5f00::/16, SRv6 segment ids, not forwarded across the internet
  // Added: IPv4-translated addresses (::ffff:0:a.b.c.d, SIIT). Only a translator inside a network
  // gives them a meaning, and there it leads to any IPv4 address, private ones included.
  rfc6145: 'reserved',
  ipv4Mapped: 'carried_ipv4', // ::ffff:a.b.c.d is a.b.c.d to the socket
  // 64:ff9b::/96 (NAT64) carries its IPv4 address; the local-use 64:ff9b:1::/48 (added) carries
  // it where the operator chose, so it is refused as reserved (see carriedIPv4).
  rfc6052: 'carried_ipv4',
  '6to4': 'carried_ipv4', // 2002::/16: 2002:AABB:CCDD:: tunnels to AA.BB.CC.DD
  ipv4Compatible: 'reserved',
  dummyPrefix: 'reserved',
};

/**
 * The category of a non-public address; `null` for a public one. IPv6 forms that carry an IPv4
 * address (IPv4-mapped `::ffff:10.0.0.1`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by
 * that IPv4 address. Something that is not an IP address at all counts as `reserved`.
 *
 * @example
 * classifyAddress('169.254.169.254'); // 'link_local'
 * classifyAddress('::ffff:10.0.0.1'); // 'private'
 * classifyAddress('93.184.216.34');   // null
 */
export function classifyAddress(address: string): AddressCategory | null {
  const parsed = parseIpLiteral(address);
  return parsed === null ? 'reserved' : categoryOf(parsed);
}

function categoryOf(address: IpAddress): AddressCategory | null {
  const verdict = verdictFor(rangeName(address));
  if (verdict === 'public') return null;
  if (verdict !== 'carried_ipv4') return verdict;
  const ipv4 = carriedIPv4(address);
  return ipv4 === null ? 'reserved' : categoryOf(ipv4);
}

function rangeName(address: IpAddress): string {
  const name = address.range();
  return name === 'unicast' ? ipaddr.subnetMatch(address, SUPPLEMENTARY_RANGES, name) : name;
}

function verdictFor(name: string): RangeVerdict {
  // A name missing here comes from a newer ipaddr.js: a range someone set apart, refused until decided.
  return Object.hasOwn(RANGE_VERDICTS, name) ? RANGE_VERDICTS[name as RangeName] : 'reserved';
}
