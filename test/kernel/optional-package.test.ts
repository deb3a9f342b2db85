import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/kernel/errors.js';
import { importWithOptionalPackages, requireOptionalPackage } from '../../src/kernel/optional-package.js';

/** A package name installed nowhere on this machine: resolving it fails for real. */
const ABSENT = 'acct-webhook-absent-package-for-tests';
const USE = { option: 'store', feature: 'Frobnication' };

/** A module of test/fixtures, imported at run time (plain JavaScript, no declarations). */
const fixture = (name: string): Promise<unknown> => import(new URL(`../fixtures/${name}`, import.meta.url).href);

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('an optional package that is not installed', () => {
  it('require: a ConfigurationError naming the package and the command that installs it', () => {
    const error = refusal(() => requireOptionalPackage(ABSENT, { ...USE, instead: 'or use memoryStore()' }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { option: 'store', reason: `needs the ${ABSENT} package: install it (npm install ${ABSENT}), or use memoryStore()` },
      message: `Frobnication needs the ${ABSENT} package, which is not installed: npm install ${ABSENT}, or use memoryStore()`,
    });
  });

  it('import of a module that imports it: the same ConfigurationError, with the loader\'s failure as its cause', async () => {
    const failure = importWithOptionalPackages(() => fixture('imports-absent-package.mjs'), ['ipaddr.js', ABSENT], USE);
    await expect(failure).rejects.toBeInstanceOf(ConfigurationError);
    await expect(failure).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { option: 'store', reason: expect.stringContaining(`npm install ${ABSENT}`) },
      cause: { code: 'ERR_MODULE_NOT_FOUND' },
    });
  });
});

describe('an optional package that is installed', () => {
  it('require: the package itself', () => {
    const ipaddr = requireOptionalPackage<{ isValid(address: string): boolean }>('ipaddr.js', USE);
    expect(ipaddr.isValid('127.0.0.1')).toBe(true);
  });

  it('one whose exports leave out package.json counts as installed: a failure around it is passed on as it is', async () => {
    // std-env (installed with vitest) exports only its ES module; the fixture fails by itself.
    expect(() => createRequire(import.meta.url).resolve('std-env/package.json')).toThrow(expect.objectContaining({ code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' }));
    const failure = importWithOptionalPackages(() => fixture('throws-on-import.mjs'), ['std-env', 'ipaddr.js'], USE);
    await expect(failure).rejects.toBeInstanceOf(RangeError);
    await expect(failure).rejects.toThrow('this module fails by itself');
  });

  it('require with a check that fails (a native module never built): installed but cannot be loaded, and how to repair it', () => {
    const error = refusal(() =>
      requireOptionalPackage('ipaddr.js', { ...USE, repair: 'npm rebuild ipaddr.js' }, () => {
        throw new Error('Could not locate the bindings file.\n Tried:\n → /somewhere');
      }),
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({
      details: {
        option: 'store',
        reason: 'needs the ipaddr.js package, which is installed but cannot be loaded (Could not locate the bindings file.): npm rebuild ipaddr.js',
      },
    });
  });
});

describe('several optional packages that are not installed', () => {
  it('import: one ConfigurationError naming every missing one in one install command', async () => {
    const second = `${ABSENT}-too`;
    const failure = importWithOptionalPackages(() => fixture('imports-absent-package.mjs'), [ABSENT, 'ipaddr.js', second], USE);
    await expect(failure).rejects.toBeInstanceOf(ConfigurationError);
    await expect(failure).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { option: 'store', reason: `needs the ${ABSENT} and ${second} packages: install them (npm install ${ABSENT} ${second})` },
      message: `Frobnication needs the ${ABSENT} and ${second} packages, which are not installed: npm install ${ABSENT} ${second}`,
    });
  });
});
