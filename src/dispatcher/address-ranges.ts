import { BlockList, isIP } from 'node:net';

/**
 * Address ranges a webhook may not reach: everything that is not the public internet. A webhook
 * URL is chosen by whoever registers it, so without these rules the dispatcher becomes a way
 * into the platform's own network (SSRF), the cloud metadata service at 169.254.169.254 first.
 */
export type AddressCategory = 'unspecified' | 'loopback' | 'private' | 'link_local' | 'shared' | 'multicast' | 'reserved';

type Range = readonly [network: string, prefix: number, category: AddressCategory];

const IPV4_RANGES: readonly Range[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['169.254.0.0', 16, 'link_local'],
  ['100.64.0.0', 10, 'shared'],
  ['224.0.0.0', 4, 'multicast'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['240.0.0.0', 4, 'reserved'],
];

const IPV6_RANGES: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'private'],
  ['fec0::', 10, 'private'],
  ['fe80::', 10, 'link_local'],
  ['ff00::', 8, 'multicast'],
  // IPv4-compatible addresses (deprecated), discard-only, IETF assignments incl. Teredo, documentation.
  ['::', 96, 'reserved'],
  ['100::', 64, 'reserved'],
  ['2001::', 23, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
];

/** Checked in this order: the first category whose ranges contain the address wins. */
const CATEGORY_ORDER: readonly AddressCategory[] = [
  'unspecified',
  'loopback',
  'private',
  'link_local',
  'shared',
  'multicast',
  'reserved',
];

const LISTS = buildLists();

function buildLists(): Map<AddressCategory, BlockList> {
  const lists = new Map(CATEGORY_ORDER.map((category) => [category, new BlockList()]));
  for (const [network, prefix, category] of IPV4_RANGES) lists.get(category)!.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix, category] of IPV6_RANGES) lists.get(category)!.addSubnet(network, prefix, 'ipv6');
  return lists;
}

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
  const family = isIP(address);
  if (family === 0) return 'reserved';
  const embedded = family === 6 ? embeddedIPv4(address) : null;
  if (embedded !== null) return classifyAddress(embedded);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return CATEGORY_ORDER.find((category) => LISTS.get(category)!.check(address, type)) ?? null;
}

/** The IPv4 address inside an IPv4-mapped, NAT64 or 6to4 IPv6 address; `null` otherwise. */
export function embeddedIPv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const groups = ipv6Groups(address);
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return ipv4From(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return ipv4From(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return ipv4From(groups[1]!, groups[2]!);
  return null;
}

/** The eight 16-bit groups of an IPv6 address (a zone id such as `%eth0` is ignored). */
function ipv6Groups(address: string): number[] {
  // The URL serializer writes every IPv6 form (dotted tails, leading zeros) as compressed hex.
  const [bare = ''] = address.split('%');
  const canonical = new URL(`http://[${bare}]`).hostname.slice(1, -1);
  const [left = '', right] = canonical.split('::');
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const fill = right === undefined ? [] : Array<string>(8 - head.length - tail.length).fill('0');
  return [...head, ...fill, ...tail].map((group) => parseInt(group, 16));
}

function ipv4From(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}
