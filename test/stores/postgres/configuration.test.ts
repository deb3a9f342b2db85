import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/index.js';
import { MIN_RETENTION_MS } from '../../../src/ports/idempotency-store.js';
import { Dispatcher } from '../../../src/dispatcher.js';
import { postgresDispatchStore, postgresStore, type PostgresPool } from '../../../src/stores/postgres/index.js';
import { redactUrl } from '../../../src/stores/postgres/pool.js';

/** Catches what `build` throws; fails when it throws nothing. */
function thrown(build: () => unknown): ConfigurationError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

const fakePool: PostgresPool = {
  query: () => Promise.reject(new Error('not used')),
  connect: () => Promise.reject(new Error('not used')),
  end: () => Promise.resolve(),
};

describe('building a PostgreSQL store', () => {
  it('refuses what is not a postgres:// URL, and never repeats a password', () => {
    const unparsable = thrown(() => postgresStore('user:hunter2@db:5432/app'));
    expect(unparsable.code).toBe('INVALID_CONFIGURATION');
    expect(unparsable.details).toEqual({ option: 'poolOrUrl', reason: expect.stringContaining('postgres://') });
    expect(JSON.stringify([unparsable.message, unparsable.details])).not.toContain('hunter2');

    const unparsableAtAll = thrown(() => postgresDispatchStore('postgres://app:hunter2@[db/app'));
    expect(unparsableAtAll.details).toEqual({ option: 'poolOrUrl', reason: expect.stringContaining('cannot be parsed') });
    expect(JSON.stringify([unparsableAtAll.message, unparsableAtAll.details])).not.toContain('hunter2');

    const wrongScheme = thrown(() => postgresDispatchStore('mysql://app:hunter2@db:3306/app'));
    expect(wrongScheme.details).toEqual({ option: 'poolOrUrl', reason: expect.stringContaining('postgres://') });
    expect(JSON.stringify([wrongScheme.message, wrongScheme.details])).not.toContain('hunter2');

    // A bad option next to a URL with a password: the message names the option, never the URL.
    const badOption = thrown(() => postgresDispatchStore('postgres://app:hunter2@db/app', { poolSize: -1 }));
    expect(badOption.details).toMatchObject({ option: 'poolSize' });
    expect(JSON.stringify([badOption.message, badOption.details])).not.toContain('hunter2');
  });

  it('refuses something that is neither a URL nor a pool, and pool options next to a pool', () => {
    for (const value of [undefined, null, 42, {}, { query() {} }]) {
      expect(thrown(() => postgresStore(value as never)).details).toMatchObject({ option: 'poolOrUrl' });
    }
    expect(thrown(() => postgresStore(fakePool, { poolSize: 3 })).details).toEqual({ option: 'poolSize', reason: expect.stringContaining('only when a URL is given') });
    expect(thrown(() => postgresDispatchStore(fakePool, { connectTimeoutMs: 100 })).details).toMatchObject({ option: 'connectTimeoutMs' });
    expect(thrown(() => postgresStore('postgres://db/app', { poolSize: 0 })).details).toMatchObject({ option: 'poolSize' });
    expect(thrown(() => postgresDispatchStore('postgres://db/app', { pool_size: 2 } as never)).details).toEqual({ option: 'pool_size', reason: 'is not an option' });
    expect(thrown(() => postgresStore('postgres://db/app', { retention: 1 } as never)).details).toMatchObject({ option: 'retention' });
  });

  it('takes a schema only as a plain identifier (it cannot be a bound parameter)', () => {
    for (const schema of ['bad-name', 'x; DROP TABLE y', 'a"b', '1abc', '', 'x'.repeat(64)]) {
      expect(thrown(() => postgresStore(fakePool, { schema })).details).toMatchObject({ option: 'schema' });
    }
    expect(() => postgresDispatchStore(fakePool, { schema: 'Receivers_2' })).not.toThrow();
    expect(() => postgresStore(fakePool, { schema: '_x' })).not.toThrow();
  });

  it('takes preparedStatements only as a boolean', () => {
    expect(thrown(() => postgresStore(fakePool, { preparedStatements: 'yes' as never })).details).toEqual({ option: 'preparedStatements', reason: 'must be true or false' });
    expect(() => postgresDispatchStore(fakePool, { preparedStatements: false })).not.toThrow();
  });

  it('keeps the retention rule of every store', () => {
    expect(postgresStore(fakePool).retentionMs).toBe(30 * 24 * 3600_000);
    expect(() => postgresStore(fakePool, { retentionMs: MIN_RETENTION_MS - 1 })).toThrow(ConfigurationError);
  });

  it('returns at once from a URL without connecting; the Dispatcher takes the store', async () => {
    const store = postgresStore('postgres://app:secret@127.0.0.1:1/app', { connectTimeoutMs: 1_000 });
    const dispatchStore = postgresDispatchStore('postgres://app:secret@127.0.0.1:1/app', { connectTimeoutMs: 1_000 });
    const dispatcher = new Dispatcher({ store: dispatchStore, logger: false });
    expect(dispatcher.settings.database).toBeNull();
    await dispatcher.close();
    await dispatchStore.close();
    await store.close();
    await store.close(); // twice is fine
  });

  it('redacts passwords in URLs, also a password parameter', () => {
    expect(redactUrl('postgres://app:s3cr%C3%A9t@db:5432/app?password=other&sslmode=require')).toBe(
      'postgres://app:***@db:5432/app?password=***&sslmode=require',
    );
    expect(redactUrl('postgres://db/app')).toBe('postgres://db/app');
    expect(redactUrl('app:pw@db')).toBe('(not a PostgreSQL URL)');
    expect(redactUrl('mysql://app:pw@db/app')).toBe('(not a PostgreSQL URL)');
  });
});
