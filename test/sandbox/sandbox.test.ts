import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { temporaryDirectory } from '../cli/helpers.js';
import { apiClient, TestReceiver } from './helpers.js';

/* createSandbox as a library: its clock modes, a kept database, bad options. */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('createSandbox', () => {
  it('without a seed follows the wall clock, so a receiver checking freshness against Date.now accepts its deliveries', async () => {
    const sandbox = await createSandbox();
    cleanups.push(() => sandbox.close());
    const receiver = await new TestReceiver().start();
    cleanups.push(() => receiver.close());
    expect(Math.abs(sandbox.now() - Date.now())).toBeLessThan(5_000);
    const call = apiClient(sandbox);
    receiver.secret = (await call('POST', '/webhooks', { url: receiver.url, events: ['customer.*'] })).body.data.secret;
    await call('POST', '/customers', { name: 'Huber' });
    await sandbox.settle();
    expect(receiver.types()).toEqual(['customer.created']);
  });

  it('keeps its data, clock and id sequence in a --db file across runs', async () => {
    const directory = temporaryDirectory('acct-sandbox-db');
    cleanups.push(() => directory.remove());
    const database = join(directory.path, 'sandbox.db');
    const first = await createSandbox({ seed: 5, database });
    const firstCall = apiClient(first);
    const webhook = (await firstCall('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] })).body.data;
    const customer = (await firstCall('POST', '/customers', { name: 'Huber' })).body.data;
    await first.advance('2d');
    const time = first.now();
    await first.close();

    const second = await createSandbox({ seed: 5, database });
    cleanups.push(() => second.close());
    const call = apiClient(second);
    expect(second.apiKey).toBe(first.apiKey);
    expect(second.now()).toBe(time);
    expect((await call('GET', `/customers/${customer.id}`)).body.data).toEqual(customer);
    expect((await call('GET', `/webhooks/${webhook.id}`)).body.data.url).toBe('http://127.0.0.1:9/hook');
    const next = (await call('POST', '/customers', { name: 'Gruber' })).body.data;
    expect(next.id > customer.id).toBe(true);
  });

  it('refuses a port in use with INVALID_CONFIGURATION on port (the cause keeps EADDRINUSE)', async () => {
    const first = await createSandbox();
    cleanups.push(() => first.close());
    const refused = await createSandbox({ port: first.port }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option: 'port' }, cause: { code: 'EADDRINUSE' } });
  });

  it.each([
    [{ port: 70_000 }, 'port'],
    [{ seed: -1 }, 'seed'],
    [{ apiKey: 'sk_live_0123456789' }, 'apiKey'],
    [{ plan: 'enterprise' }, 'plan'],
    [{ faults: { drop_first_attempts: 9 } }, 'faults.drop_first_attempts'],
    [{ startAt: 'yesterday' }, 'startAt'],
    [{ colour: 'red' }, 'colour'],
  ])('%j → INVALID_CONFIGURATION on %s', async (options, option) => {
    await expect(createSandbox(options as never)).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option } });
  });
});
