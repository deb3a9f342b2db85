import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { Dispatcher, InvalidUrlError, type UrlRefusalReason } from '../../src/dispatcher.js';
import { classifyAddress } from '../../src/dispatcher/address-ranges.js';
import { RefusedAddressError, UrlGuard, type ResolveHost } from '../../src/dispatcher/url-guard.js';
import { createTestEvent } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';
import { Receiver, tempDir, testDispatcher } from './fixtures.js';

/** A resolver from a fixed table, recording every name asked for; it never touches the network. */
function fakeDns(table: Record<string, readonly string[]>): ResolveHost & { asked: string[] } {
  const asked: string[] = [];
  const resolve = (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    return addresses ? Promise.resolve(addresses) : Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
  };
  return Object.assign(resolve, { asked });
}

const DNS = {
  'receiver.example': ['93.184.216.34'],
  'dual.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example': ['10.0.0.1'],
  'mixed.example': ['93.184.216.34', '192.168.1.10'],
  'metadata.example': ['169.254.169.254'],
  'mapped.example': ['::ffff:10.0.0.1'],
  'ula.example': ['fd12:3456:789a::1'],
  'cgnat.example': ['100.64.0.7'],
  'loop.example': ['127.0.0.1'],
  localhost: ['127.0.0.1', '::1'],
};

async function refusal(dispatcher: Dispatcher, url: string): Promise<InvalidUrlError> {
  try {
    await dispatcher.webhooks.create({ url, events: ['*'] });
  } catch (error) {
    if (error instanceof InvalidUrlError) return error;
    throw error;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('webhook URL rules (create)', () => {
  const refused: [string, UrlRefusalReason][] = [
    ['not a url', 'invalid_url'],
    ['/relative/path', 'invalid_url'],
    ['', 'invalid_url'],
    [`https://receiver.example/${'a'.repeat(2100)}`, 'invalid_url'],
    ['ftp://receiver.example/hook', 'unsupported_protocol'],
    ['file:///etc/passwd', 'unsupported_protocol'],
    ['javascript:alert(1)', 'unsupported_protocol'],
    ['http://receiver.example/hook', 'https_required'],
    ['http://example.test/hook', 'https_required'],
    ['http://127.0.0.1:8080/hook', 'https_required'],
    ['http://localhost:8080/hook', 'https_required'],
    ['https://user:pass@receiver.example/hook', 'credentials_in_url'],
    ['https://token@receiver.example/hook', 'credentials_in_url'],
    ['https://internal.example/hook', 'private_address'],
    ['https://10.0.0.1/hook', 'private_address'],
    ['https://172.16.5.4/hook', 'private_address'],
    ['https://192.168.0.1/hook', 'private_address'],
    ['https://mixed.example/hook', 'private_address'],
    ['https://[fd12:3456:789a::1]/hook', 'private_address'],
    ['https://ula.example/hook', 'private_address'],
    ['https://mapped.example/hook', 'private_address'],
    ['https://[::ffff:10.0.0.1]/hook', 'private_address'],
    ['https://127.0.0.1/hook', 'loopback_address'],
    ['https://[::1]/hook', 'loopback_address'],
    ['https://localhost/hook', 'loopback_address'],
    ['https://loop.example/hook', 'loopback_address'],
    ['https://169.254.169.254/latest/meta-data/', 'link_local_address'],
    ['https://metadata.example/', 'link_local_address'],
    ['https://[fe80::1]/hook', 'link_local_address'],
    ['https://100.64.0.7/hook', 'shared_address'],
    ['https://cgnat.example/hook', 'shared_address'],
    ['https://0.0.0.0/hook', 'unspecified_address'],
    ['https://[::]/hook', 'unspecified_address'],
    ['https://224.0.0.1/hook', 'multicast_address'],
    ['https://[ff02::1]/hook', 'multicast_address'],
    ['https://240.0.0.1/hook', 'reserved_address'],
    ['https://255.255.255.255/hook', 'reserved_address'],
    ['https://192.0.2.1/hook', 'reserved_address'],
    ['https://2130706433/hook', 'unusual_ip_notation'],
    ['https://0177.0.0.1/hook', 'unusual_ip_notation'],
    ['https://0x7f.0.0.1/hook', 'unusual_ip_notation'],
    ['https://0x7f000001/hook', 'unusual_ip_notation'],
    ['https://127.1/hook', 'unusual_ip_notation'],
    ['https://012.0.0.1/hook', 'unusual_ip_notation'],
    ['https://unknown.example/hook', 'unresolvable_host'],
  ];

  it.each(refused)('refuses %s (%s)', async (url, reason) => {
    const dispatcher = testDispatcher({ allowInsecureUrls: false, resolveHost: fakeDns(DNS) });
    const error = await refusal(dispatcher, url);
    expect(error.code).toBe('INVALID_URL');
    expect(error.details).toMatchObject({ field: 'url', reason });
    expect(await dispatcher.webhooks.list()).toEqual([]);
  });

  it.each([
    ['http://2130706433/hook', 'unusual_ip_notation'],
    ['http://0177.0.0.1/hook', 'unusual_ip_notation'],
    ['http://[::ffff:127.0.0.1]/hook', 'https_required'],
    ['http://127.0.0.2/hook', 'https_required'],
    ['http://localhost.:8080/hook', 'https_required'],
    ['http://192.168.0.1/hook', 'https_required'],
    ['http://receiver.example/hook', 'https_required'],
  ] as const)('refuses %s even with allowInsecureUrls (%s)', async (url, reason) => {
    const dispatcher = testDispatcher({ allowInsecureUrls: true, resolveHost: fakeDns(DNS) });
    expect((await refusal(dispatcher, url)).details).toMatchObject({ field: 'url', reason });
  });

  it.each([
    ['https://receiver.example/hook', {}],
    ['https://dual.example/hook', {}],
    ['https://93.184.216.34/hook', {}],
    ['https://receiver.example:8443/hook?tenant=a', {}],
    ['http://127.0.0.1:8080/hook', { allowInsecureUrls: true }],
    ['http://localhost:8080/hook', { allowInsecureUrls: true }],
    ['http://[::1]:8080/hook', { allowInsecureUrls: true }],
    ['https://localhost:8443/hook', { allowInsecureUrls: true }],
    ['https://internal.example/hook', { allowedHosts: ['internal.example'] }],
    ['https://internal.example/hook', { allowedHosts: ['10.0.0.0/8'] }],
    ['https://10.0.0.1/hook', { allowedHosts: ['10.0.0.1'] }],
    ['https://mapped.example/hook', { allowedHosts: ['10.0.0.0/24'] }],
    ['https://[fd12:3456:789a::1]/hook', { allowedHosts: ['fd12:3456:789a::/48'] }],
  ] as const)('accepts %s with %o', async (url, options) => {
    const dispatcher = testDispatcher({ allowInsecureUrls: false, resolveHost: fakeDns(DNS), ...options });
    const webhook = await dispatcher.webhooks.create({ url, events: ['*'] });
    expect(webhook.url).toBe(new URL(url).href);
  });

  it('refuses http://example.test without resolving or connecting to anything', async () => {
    const dns = fakeDns(DNS);
    const dispatcher = testDispatcher({ allowInsecureUrls: false, resolveHost: dns });
    expect((await refusal(dispatcher, 'http://example.test/hook')).details.reason).toBe('https_required');
    expect(dns.asked).toEqual([]);
  });

  it('refuses a host that resolves to 10.0.0.1, naming the address', async () => {
    const dns = fakeDns(DNS);
    const dispatcher = testDispatcher({ resolveHost: dns });
    const error = await refusal(dispatcher, 'https://internal.example/hook');
    expect(error.details).toMatchObject({ field: 'url', reason: 'private_address', address: '10.0.0.1' });
    expect(dns.asked).toEqual(['internal.example']);
  });

  it('applies the same rules on update', async () => {
    const dispatcher = testDispatcher({ allowInsecureUrls: false, resolveHost: fakeDns(DNS) });
    const webhook = await dispatcher.webhooks.create({ url: 'https://receiver.example/hook', events: ['*'] });
    await expect(dispatcher.webhooks.update(webhook.id, { url: 'https://metadata.example/' })).rejects.toMatchObject({
      code: 'INVALID_URL',
      details: { field: 'url', reason: 'link_local_address' },
    });
    expect((await dispatcher.webhooks.get(webhook.id)).url).toBe('https://receiver.example/hook');
  });
});

describe('the guard at connect time', () => {
  it('refuses a name that resolves to 10.0.0.1 when the socket looks it up (no socket involved here)', async () => {
    const guard = new UrlGuard({ allowInsecureUrls: false, allowedHosts: [], resolveHost: fakeDns(DNS) });
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => guard.lookup('internal.example', { all: true }, (err) => resolve(err)));
    expect(error).toBeInstanceOf(RefusedAddressError);
    expect((error as RefusedAddressError).refusal).toMatchObject({ reason: 'private_address', address: '10.0.0.1' });
  });

  it('hands allowed addresses to the socket in both lookup shapes', async () => {
    const guard = new UrlGuard({ allowInsecureUrls: false, allowedHosts: [], resolveHost: fakeDns(DNS) });
    const all = await new Promise((resolve) => guard.lookup('dual.example', { all: true }, (_err, addresses) => resolve(addresses)));
    expect(all).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    const one = await new Promise((resolve) => guard.lookup('dual.example', { family: 6 }, (_err, address, family) => resolve([address, family])));
    expect(one).toEqual(['2606:2800:220:1:248:1893:25c8:1946', 6]);
  });

  it('refuses at send time a name that now resolves to a forbidden address (DNS rebinding), before connecting', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const port = new URL(url).port;
      // Public at registration; loopback at delivery. Were the guard broken, the socket would go
      // to 127.0.0.2 (loopback, where nothing listens), never off this machine.
      const table: Record<string, string[]> = { 'rebind.example': ['93.184.216.34'] };
      const dispatcher = testDispatcher({ allowInsecureUrls: false, resolveHost: fakeDns(table) });
      await dispatcher.webhooks.create({ url: `https://rebind.example:${port}/hook`, events: ['*'] });
      table['rebind.example'] = ['127.0.0.2'];
      await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.runDue();
      const [delivery] = await dispatcher.deliveries.list();
      const detail = await dispatcher.deliveries.get(delivery!.id);
      expect(detail.attempts[0]).toMatchObject({ error_kind: 'ssrf', response_status: null, receiver_ip: null });
      expect(detail.status).toBe('retrying');
      expect(receiver.requests).toHaveLength(0);
    });
  });

  it('refuses a stored plain-http URL once the development switch is off', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const file = join(tempDir(), 'dispatch.db');
      const dev = new Dispatcher({ database: file, logger: false, allowInsecureUrls: true });
      await dev.webhooks.create({ url, events: ['*'] });
      await dev.close();
      const production = testDispatcher({ database: file, allowInsecureUrls: false });
      await production.emit(createTestEvent('invoice.paid'));
      await production.runDue();
      const [delivery] = await production.deliveries.list();
      expect((await production.deliveries.get(delivery!.id)).attempts[0]).toMatchObject({ error_kind: 'ssrf' });
      expect(receiver.requests).toHaveLength(0);
    });
  });
});

describe('classifyAddress', () => {
  it.each([
    ['93.184.216.34', null],
    ['8.8.8.8', null],
    ['2606:4700:4700::1111', null],
    ['10.255.255.255', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', null],
    ['192.168.100.1', 'private'],
    ['127.8.8.8', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'link_local'],
    ['fe80::abcd%eth0', 'link_local'],
    ['100.64.0.1', 'shared'],
    ['100.128.0.1', null],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['239.255.255.250', 'multicast'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:8.8.8.8', null],
    ['64:ff9b::a9fe:a9fe', 'link_local'],
    ['2002:c0a8:0101::1', 'private'],
    ['2001:db8::1', 'reserved'],
    ['not-an-ip', 'reserved'],
  ] as const)('%s is %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });
});

describe('allowedHosts', () => {
  it.each([['http://x.example'], ['10.0.0.0/33'], ['::1/129'], ['10.0.0.1/8/2'], ['bad host'], [''], ['host/24']])(
    'refuses the entry %j when the Dispatcher is built',
    (entry) => {
      expect(() => new Dispatcher({ database: join(tempDir(), 'd.db'), logger: false, allowedHosts: [entry] })).toThrow(ConfigurationError);
    },
  );
});
