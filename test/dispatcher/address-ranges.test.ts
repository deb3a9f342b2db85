import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/dispatcher/address-ranges.js';

describe('classifyAddress: the ranges decided when ipaddr.js took over', () => {
  it.each([
    // Named by ipaddr.js, public under the old list, refused now.
    ['192.175.48.1', 'reserved'], // AS112
    ['192.31.196.1', 'reserved'], // AS112
    ['2620:4f:8000::1', 'reserved'], // AS112 (IPv6)
    ['192.52.193.1', 'reserved'], // AMT
    ['3fff::1', 'reserved'], // documentation (RFC 9637)
    ['3fff:fff:ffff::1', 'reserved'],
    ['5f00::1', 'reserved'], // SRv6 segment ids
    ['::ffff:0:8.8.8.8', 'reserved'], // IPv4-translated, even when it carries a public address
    ['::ffff:0:a00:1', 'reserved'],
    ['64:ff9b:1::a00:1', 'reserved'], // local-use NAT64: where the IPv4 address sits is the operator's choice
    ['100:0:0:1::1', 'reserved'], // the dummy prefix, not named by ipaddr.js
    // Refused before, refused still (now through ipaddr.js's names).
    ['2001::1', 'reserved'], // Teredo
    ['2001:2::1', 'reserved'], // benchmarking
    ['198.18.0.1', 'reserved'], // benchmarking
    ['2001:20::1', 'reserved'], // ORCHIDv2
    ['100::1', 'reserved'], // discard-only
    ['fec0::1', 'private'], // deprecated site-local
    ['::2', 'reserved'], // IPv4-compatible
    // ipaddr.js reads ::a.b.c.d as ::ffff:a.b.c.d; to a socket it is the IPv4-compatible ::a.b.c.d.
    ['::8.8.8.8', 'reserved'],
    ['::10.0.0.1', 'reserved'],
    // IPv6 forms judged by the IPv4 address they carry.
    ['64:ff9b::8.8.8.8', null],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:808:808::1', null],
    ['2002:a9fe:a9fe::1', 'link_local'],
    ['::ffff:100.64.0.1', 'shared'],
    ['::ffff:255.255.255.255', 'reserved'],
    // Notations ipaddr.js reads but Node hands to a resolver as host names: not addresses.
    ['0x7f.0.0.1', 'reserved'],
    ['2130706433', 'reserved'],
    ['0177.0.0.1', 'reserved'],
    // A zone id in a spelling ipaddr.js does not accept is still read.
    ['fe80::1%eth-0.5', 'link_local'],
    ['FE80::1', 'link_local'],
    // Public neighbours of the ranges above.
    ['192.175.49.1', null],
    ['3fff:1000::1', null],
    ['2001:200::1', null],
    ['198.20.0.1', null],
  ] as const)('%s is %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });

  // Every special-purpose range ipaddr.js knows is refused, at its first and at its last address:
  // a range a newer ipaddr.js adds is refused too (a name the table lacks counts as reserved).
  const namedRanges = [ipaddr.IPv4, ipaddr.IPv6].flatMap((family) => {
    // SpecialRanges is ipaddr.js's own table; its type declarations leave it out.
    const table = (family.prototype as unknown as { SpecialRanges: Record<string, [ipaddr.IPv4 | ipaddr.IPv6, number] | [ipaddr.IPv4 | ipaddr.IPv6, number][]> })
      .SpecialRanges;
    return Object.entries(table).flatMap(([name, ranges]) =>
      (Array.isArray(ranges[0]) ? (ranges as [ipaddr.IPv4 | ipaddr.IPv6, number][]) : [ranges as [ipaddr.IPv4 | ipaddr.IPv6, number]]).map(
        ([network, prefixLength]) => [name, `${network.toString()}/${prefixLength}`] as const,
      ),
    );
  });

  it('reads ipaddr.js ranges of both families', () => {
    expect(namedRanges.length).toBeGreaterThan(30);
  });

  it.each(namedRanges)('refuses %s %s at both ends', (_name, cidr) => {
    const [network] = ipaddr.parseCIDR(cidr);
    const family = network.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
    const first = family.networkAddressFromCIDR(cidr).toString();
    const last = family.broadcastAddressFromCIDR(cidr).toString();
    expect(classifyAddress(first)).not.toBeNull();
    expect(classifyAddress(last)).not.toBeNull();
  });
});
