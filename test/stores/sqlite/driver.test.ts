import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/index.js';
import { sqliteDispatchStore, sqliteStore } from '../../../src/stores/sqlite/index.js';
import { chooseSqliteDriver, type SqliteDriverAvailability } from '../../../src/stores/sqlite/drivers.js';

const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-driver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const loads = { loads: true } as const;
const missing = { loads: false, missing: true, error: Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' }) } as const;
const broken = { loads: false, missing: false, error: new Error('The module was compiled against a different Node.js version\nusing NODE_MODULE_VERSION 115') } as const;

const refusal = (choose: () => unknown) => {
  try {
    choose();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).details;
  }
  throw new Error('not refused');
};

// Which driver a store runs on, from what this process has. The drivers themselves run the
// contract suites: better-sqlite3 in test/stores/stores.test.ts and test/stores/sqlite/dispatch-store.test.ts,
// node:sqlite in test/stores/sqlite/contracts.node-sqlite.test.ts.
describe('the SQLite driver a store runs on', () => {
  /** Node.js 20 (no node:sqlite), and 22.16+ or 24+. */
  const node20 = { nodeSqlite: false, runtime: { name: 'Node.js', version: 'v20.20.2' } } as const;
  const node24 = { nodeSqlite: true, runtime: { name: 'Node.js', version: 'v24.11.0' } } as const;
  /** Bun and Deno: better-sqlite3 never loads (neither loads an addon outside Node-API); each has a node:sqlite of its own. */
  const bun = { nodeSqlite: true, runtime: { name: 'Bun', version: '1.4.5' } } as const;
  const deno = { nodeSqlite: true, runtime: { name: 'Deno', version: '2.9.6' } } as const;
  const bunRefuses = { loads: false, missing: false, error: Object.assign(new Error("'better-sqlite3' is not yet supported in Bun."), { code: 'ERR_DLOPEN_FAILED' }) } as const;
  const denoRefuses = { loads: false, missing: false, error: new Error('Cannot load native addon at …/better_sqlite3.node: it was built against the legacy Node.js native addon API (NODE_MODULE / nan), which Deno does not support.') } as const;

  it.each<[string, SqliteDriverAvailability, string]>([
    ['both work → better-sqlite3', { ...node24, betterSqlite3: loads }, 'better-sqlite3'],
    ['better-sqlite3 not installed → node:sqlite', { ...node24, betterSqlite3: missing }, 'node:sqlite'],
    ['better-sqlite3 built for another Node.js → node:sqlite', { ...node24, betterSqlite3: broken }, 'node:sqlite'],
    ['no node:sqlite (Node.js 20) → better-sqlite3', { ...node20, betterSqlite3: loads }, 'better-sqlite3'],
    ['Bun → its node:sqlite', { ...bun, betterSqlite3: bunRefuses }, 'node:sqlite'],
    ['Deno → its node:sqlite', { ...deno, betterSqlite3: denoRefuses }, 'node:sqlite'],
    ['Bun without better-sqlite3 installed → its node:sqlite', { ...bun, betterSqlite3: missing }, 'node:sqlite'],
  ])('without a driver asked for: %s', (_case, available, expected) => {
    expect(chooseSqliteDriver(undefined, available, 'database')).toBe(expected);
  });

  it('does not load better-sqlite3 when node:sqlite is asked for', () => {
    const available = {
      ...node24,
      get betterSqlite3(): never {
        throw new Error('better-sqlite3 was looked at');
      },
    };
    expect(chooseSqliteDriver('node:sqlite', available, 'driver')).toBe('node:sqlite');
  });

  it('takes the driver asked for when it works, whatever the other', () => {
    expect(chooseSqliteDriver('node:sqlite', { ...node24, betterSqlite3: loads }, 'driver')).toBe('node:sqlite');
    expect(chooseSqliteDriver('better-sqlite3', { ...node24, betterSqlite3: loads }, 'driver')).toBe('better-sqlite3');
  });

  it('refuses, naming both ways out, when neither works', () => {
    expect(refusal(() => chooseSqliteDriver(undefined, { ...node20, betterSqlite3: missing }, 'database'))).toEqual({
      option: 'database',
      reason: expect.stringMatching(/npm install better-sqlite3.*node:sqlite \(Node\.js 22\.16\+ and 24\+\).*memoryStore\(\) or postgresStore\(\)/),
    });
    expect(refusal(() => chooseSqliteDriver(undefined, { ...node20, betterSqlite3: broken }, 'database'))).toEqual({
      option: 'database',
      reason: expect.stringMatching(/does not load on Node\.js v[\d.]+ \(The module was compiled against a different Node\.js version\): rebuild it \(npm rebuild better-sqlite3\)/),
    });
  });

  it('refuses the driver asked for when it does not work here, with what to do', () => {
    expect(refusal(() => chooseSqliteDriver('node:sqlite', { ...node20, betterSqlite3: loads }, 'driver'))).toEqual({
      option: 'driver',
      reason: expect.stringMatching(/^needs node:sqlite, which Node\.js v[\d.]+ does not have \(Node\.js 22\.16\+ and 24\+ have it\)$/),
    });
    expect(refusal(() => chooseSqliteDriver('better-sqlite3', { ...node24, betterSqlite3: missing }, 'driver'))).toEqual({
      option: 'driver',
      reason: 'needs the better-sqlite3 package, which is not installed (npm install better-sqlite3)',
    });
  });

  it('on Bun and Deno, refuses better-sqlite3 asked for by name without advice to rebuild it: the driver option is to be left out', () => {
    expect(refusal(() => chooseSqliteDriver('better-sqlite3', { ...bun, betterSqlite3: bunRefuses }, 'driver'))).toEqual({
      option: 'driver',
      reason: "needs better-sqlite3, a Node.js addon that Bun 1.4.5 cannot load ('better-sqlite3' is not yet supported in Bun.): leave the driver option out, and the store runs on Bun's node:sqlite",
    });
    expect(refusal(() => chooseSqliteDriver('better-sqlite3', { ...deno, betterSqlite3: denoRefuses }, 'driver'))).toEqual({
      option: 'driver',
      reason: expect.stringMatching(/^needs better-sqlite3, a Node\.js addon that Deno 2\.9\.6 cannot load \(Cannot load native addon .*\): leave the driver option out, and the store runs on Deno's node:sqlite$/),
    });
  });

  it('on a Bun or Deno without node:sqlite, refuses at once in one line naming memoryStore() and postgresStore()', () => {
    const reason = refusal(() => chooseSqliteDriver(undefined, { ...bun, nodeSqlite: false, betterSqlite3: bunRefuses }, 'database')).reason;
    expect(reason).toBe("needs better-sqlite3, a Node.js addon that Bun 1.4.5 cannot load ('better-sqlite3' is not yet supported in Bun.), and Bun 1.4.5 has no node:sqlite: use memoryStore() or postgresStore()");
    expect(reason).not.toContain('\n');
    expect(refusal(() => chooseSqliteDriver('node:sqlite', { ...deno, nodeSqlite: false, betterSqlite3: denoRefuses }, 'driver'))).toEqual({
      option: 'driver',
      reason: 'needs node:sqlite, which Deno 2.9.6 does not have (Node.js 22.16+ and 24+ have it)',
    });
  });
});

describe('the driver option', () => {
  it.each([
    ['sqliteStore', (options: object) => sqliteStore(join(dir, 'refused.db'), options)],
    ['sqliteDispatchStore', (options: object) => sqliteDispatchStore(join(dir, 'refused.db'), options)],
  ])('%s refuses a driver it does not know, before a file is opened', (_name, create) => {
    expect(() => create({ driver: 'sqlite3' })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: { option: 'driver', reason: "must be 'better-sqlite3' or 'node:sqlite'" } }),
    );
  });

  it('is refused with a Database the application opened: that Database is the driver', () => {
    const db = new Database(join(dir, 'given.db'));
    expect(() => sqliteStore(db, { driver: 'better-sqlite3' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'driver' }) }));
    expect(() => sqliteDispatchStore(db, { driver: 'node:sqlite' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'driver' }) }));
    db.close();
  });
});
