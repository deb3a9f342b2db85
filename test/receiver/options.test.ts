import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createReceiver,
  fetchHandler,
  memoryStore,
  nodeHandler,
  sqliteStore,
  webhookHandler,
  Webhooks,
  type ReceiverOptions,
  type WebhookHandlerOptions,
} from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';

const SECRET = 'whsec_optionsSecretNeverInAnError0000';
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function thrown(create: () => unknown): ConfigurationError {
  try {
    create();
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

const factories: [string, (options: WebhookHandlerOptions) => unknown][] = [
  ['webhookHandler', (options) => webhookHandler(options)],
  ['nodeHandler', (options) => nodeHandler(options)],
  ['fetchHandler', (options) => fetchHandler(options)],
];

describe.each(factories)('%s options', (_factory, create) => {
  const base = { secret: SECRET, store: memoryStore(), logger: false } as const;
  const cases: [string, Record<string, unknown>, string][] = [
    ['an option this version does not know', { retries: 3 }, 'retries'],
    ['a misspelled option', { handlerTimeout: 1000 }, 'handlerTimeout'],
    ['both store and database', { database: join(dir, 'x.db') }, 'database'],
    ['a store that is not a store', { store: { get() {} } }, 'store'],
    ['an empty database path', { store: undefined, database: ' ' }, 'database'],
    ['a negative tolerance', { toleranceSeconds: -1 }, 'toleranceSeconds'],
    ['a handler budget past what timers can hold', { handlerTimeoutMs: 2 ** 31 }, 'handlerTimeoutMs'],
    ['a handler budget in fractions of a millisecond (leases are kept in whole ms)', { handlerTimeoutMs: 1500.5 }, 'handlerTimeoutMs'],
    ['an inbox retry wait in fractions of a millisecond', { inbox: { retryDelaysMs: [1000, 0.5] } }, 'inbox'],
    ['a fractional body limit', { maxBodyBytes: 10.5 }, 'maxBodyBytes'],
    ['a path without a slash', { path: 'hooks' }, 'path'],
    ['a logger that cannot log', { logger: console.log }, 'logger'],
    ['a clock that is not a function', { clock: Date.now() }, 'clock'],
    ['a hook that is not a function', { onOutcome: 'metrics' }, 'onOutcome'],
    ['legacySignature as a string', { legacySignature: 'yes' }, 'legacySignature'],
  ];

  it.each(cases)('refuses %s, naming the option in details: { option, reason }', (_name, extra, option) => {
    const error = thrown(() => create({ ...base, ...extra }));
    expect(error.code).toBe('INVALID_CONFIGURATION');
    expect(error.details).toEqual({ option, reason: expect.any(String) });
    expect(`${error.message} ${JSON.stringify(error.details)}`).not.toContain(SECRET);
  });

  it.each([
    ['a missing secret', {}],
    ['an empty list of secrets', { secret: [] }],
    ['a list with an empty secret', { secret: [SECRET, ''] }],
  ])('refuses %s as option "secret"', (_name, extra) => {
    const { secret: _secret, ...withoutSecret } = base;
    const error = thrown(() => create({ ...withoutSecret, ...extra } as unknown as WebhookHandlerOptions));
    expect(error.details.option).toMatch(/^secret(\.\d+)?$/);
    expect(error.message).not.toContain(SECRET);
  });

  it('does not create the default SQLite file when an option is bad', () => {
    const file = join(dir, `never-${_factory}.db`);
    thrown(() => create({ secret: SECRET, database: file, toleranceSeconds: -5 }));
    expect(() => sqliteStore(file, { busyTimeoutMs: -1 })).toThrow(ConfigurationError);
  });
});

describe('createReceiver options', () => {
  it('refuses the adapters\' body options: the core reads no body', () => {
    const error = thrown(() => createReceiver({ secret: SECRET, store: memoryStore(), maxBodyBytes: 10 } as ReceiverOptions));
    expect(error.details).toEqual({ option: 'maxBodyBytes', reason: 'is not an option' });
  });

  it('takes the secret alone, or a list while rotating', () => {
    expect(() => createReceiver({ secret: [SECRET, 'whsec_previous'], store: memoryStore(), logger: false })).not.toThrow();
  });
});

describe('closing', () => {
  it('closes a store it opened itself (database) and leaves a store you passed open', async () => {
    const passed = sqliteStore(join(dir, 'passed.db'));
    const mine = createReceiver({ secret: SECRET, store: passed, logger: false, handlers: new Webhooks() });
    await mine.close();
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    expect(await mine.receive({ rawBody: body, headers })).toMatchObject({ status: 200 });
    await passed.close();

    const owning = createReceiver({ secret: SECRET, database: join(dir, 'owned.db'), logger: false });
    await owning.ready();
    await owning.close();
    const again = signedRequest(createTestEvent('invoice.paid'), SECRET);
    expect(await owning.receive({ rawBody: again.body, headers: again.headers })).toMatchObject({ status: 503, body: { error: { code: 'STORE_UNAVAILABLE' } } });
  });
});
