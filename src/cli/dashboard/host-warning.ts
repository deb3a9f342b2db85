import { BlockList, isIP } from 'node:net';

/** 127.0.0.0/8 and ::1 (IPv4-mapped forms included): this machine only. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether `host` (an address or `localhost`) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const address = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (address.toLowerCase() === 'localhost') return true;
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * What `acct-webhook dashboard --host <host>` prints before it starts when the address is not
 * loopback (`undefined` when it is): the server speaks plain http, so the one-time token, the
 * session cookie and the signing secrets the dashboard shows cross the network readable by anyone
 * on the way, unless a TLS proxy in front of it is what the browser talks to.
 */
export function hostWarning(host: string): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return (
    `warning: --host ${host} serves the dashboard to other machines over plain http: the one-time token, ` +
    'the session cookie and the signing secrets it shows cross the network in clear text unless a TLS proxy (https) fronts it'
  );
}
