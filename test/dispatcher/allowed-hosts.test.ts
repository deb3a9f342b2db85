import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dispatcher, InvalidUrlError, type UrlRefusalReason } from '../../src/dispatcher.js';
import { ConfigurationError } from '../../src/kernel/errors.js';
import { RefusedAddressError, UrlGuard, type ResolveHost } from '../../src/dispatcher/url-guard.js';
import { tempDir, testDispatcher } from './fixtures.js';

/** A resolver from a fixed table; it never touches the network. */
function tableDns(table: Record<string, readonly string[]>): ResolveHost {
  return (hostname) => {
    const addresses = table[hostname];
    return addresses ? Promise.resolve(addresses) : Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
  };
}

const DNS = {
  'docs.example': ['3fff::10'],
  'nat64.example': ['64:ff9b::a00:1'],
  'sixtofour.example': ['2002:a00:1::1'],
  'mapped.example': ['::ffff:10.0.0.1'],
  'compatible.example': ['::10.0.0.1'],
  'ula.example': ['fd12:3456:789a::1'],
};

async function createWith(url: string, allowedHosts: readonly string[]): Promise<string> {
  const dispatcher = testDispatcher({ allowInsecureUrls: false, resolveHost: tableDns(DNS), allowedHosts: [...allowedHosts] });
  return (await dispatcher.webhooks.create({ url, events: ['*'] })).url;
}

async function refusalWith(url: string, allowedHosts: readonly string[]): Promise<UrlRefusalReason> {
  const error = await createWith(url, allowedHosts).catch((caught: unknown) => caught);
  if (!(error instanceof InvalidUrlError)) throw new Error(`expected ${url} to be refused`);
  return error.details.reason;
}

describe('ranges refused since ipaddr.js classifies them', () => {
  it.each([
    ['https://[3fff::1]/hook', 'reserved_address'],
    ['https://docs.example/hook', 'reserved_address'],
    ['https://[5f00::1]/hook', 'reserved_address'],
    ['https://192.175.48.1/hook', 'reserved_address'],
    ['https://[::ffff:0:a00:1]/hook', 'reserved_address'],
    ['https://[::8.8.8.8]/hook', 'reserved_address'],
    ['https://nat64.example/hook', 'private_address'],
    ['https://sixtofour.example/hook', 'private_address'],
  ] as const)('refuses %s (%s)', async (url, reason) => {
    expect(await refusalWith(url, [])).toBe(reason);
  });

  it('refuses them again when the socket looks the name up', async () => {
    const guard = new UrlGuard({ allowInsecureUrls: false, allowedHosts: [], resolveHost: tableDns(DNS) });
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => guard.lookup('docs.example', { all: true }, (err) => resolve(err)));
    expect(error).toBeInstanceOf(RefusedAddressError);
    expect((error as RefusedAddressError).refusal).toMatchObject({ reason: 'reserved_address', address: '3fff::10' });
  });
});

describe('allowedHosts ranges', () => {
  it.each([
    ['https://nat64.example/hook', ['10.0.0.0/8']],
    ['https://sixtofour.example/hook', ['10.0.0.1']],
    ['https://mapped.example/hook', ['::ffff:10.0.0.0/120']],
    ['https://ula.example/hook', ['[fd12:3456:789a::]/48']],
    ['https://ula.example/hook', [' FD12:3456:789A::1 ']],
    ['https://docs.example/hook', ['3fff::/20']],
    ['https://compatible.example/hook', ['::10.0.0.0/104']],
  ] as const)('accepts %s with %j', async (url, allowedHosts) => {
    expect(await createWith(url, allowedHosts)).toBe(url);
  });

  it.each([
    ['https://mapped.example/hook', ['10.0.0.0/8'], null],
    ['https://mapped.example/hook', ['10.1.0.0/16'], 'private_address'],
    ['https://ula.example/hook', ['fd12:3456:789b::/48'], 'private_address'],
    // ipaddr.js would read ::10.0.0.0 as ::ffff:10.0.0.0; the range is the IPv4-compatible one.
    ['https://mapped.example/hook', ['::10.0.0.0/104'], 'private_address'],
    ['https://compatible.example/hook', ['10.0.0.0/8'], 'reserved_address'],
  ] as const)('judges %s with %j: %s', async (url, allowedHosts, reason) => {
    if (reason === null) expect(await createWith(url, allowedHosts)).toBe(url);
    else expect(await refusalWith(url, allowedHosts)).toBe(reason);
  });

  it.each([['0x0a.0.0.0/8'], ['010.0.0.0/8'], ['10.0.0.0/'], ['10.0.0.0/-1'], ['10.0.0.0/8x'], ['::1.2.3.4/200'], ['/8'], ['[10.0.0.1']])(
    'refuses the entry %j when the Dispatcher is built',
    (entry) => {
      let thrown: unknown;
      try {
        new Dispatcher({ database: join(tempDir(), 'd.db'), logger: false, allowedHosts: [entry] });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigurationError);
      expect(thrown).toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option: 'allowedHosts' } });
    },
  );
});
