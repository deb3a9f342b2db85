import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

/*
 * Which Chromium the browser tests drive (docs/development.md, "The browser"):
 *   - Debian's package at /usr/bin/chromium where it is installed (`.ci/run` installs it);
 *   - otherwise the Chromium that the npm package @sparticuz/chromium ships inside its tarball
 *     (a devDependency, so `npm ci` brings it like any other package). Nothing is ever downloaded:
 *     the package's brotli archives are unpacked once per version into node_modules/.cache.
 */

/** Debian's Chromium: used whenever it is installed. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';
/** The npm package whose bundled Chromium is used where Debian's is not installed. */
export const NPM_CHROMIUM_PACKAGE = '@sparticuz/chromium';

const root = resolve(import.meta.dirname, '..', '..', '..');
/** Beside the build state of test/global-setup.ts; `npm ci` removes it with node_modules. */
const CACHE_DIRECTORY = join(root, 'node_modules', '.cache', 'acct-webhook-tests');
const UNPACKED_PREFIX = 'chromium-';

/** The browser the tests launch: where it is, where it came from, and the environment it needs. */
export interface ChromiumBinary {
  executablePath: string;
  source: 'debian' | 'npm';
  /** For the log line: which Chromium this is. */
  description: string;
  /** Variables the browser process needs on top of the tests' environment. */
  env: Record<string, string>;
}

export interface FindChromiumOptions {
  /** Where Debian's Chromium would be. @default DEBIAN_CHROMIUM */
  debianPath?: string;
  /** Where the npm package's Chromium is unpacked. @default node_modules/.cache/acct-webhook-tests */
  cacheDirectory?: string;
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Debian's Chromium where it is installed, else the npm package's (unpacked on first use). */
export function findChromium({ debianPath = DEBIAN_CHROMIUM, cacheDirectory = CACHE_DIRECTORY }: FindChromiumOptions = {}): ChromiumBinary {
  if (isExecutable(debianPath)) return { executablePath: debianPath, source: 'debian', description: `Debian's Chromium at ${debianPath}`, env: {} };
  return unpackNpmChromium(cacheDirectory);
}

/** The installed version of @sparticuz/chromium (its exports do not include its package.json). */
export function npmChromiumVersion(): string {
  let directory = dirname(createRequire(join(root, 'package.json')).resolve(NPM_CHROMIUM_PACKAGE));
  for (;;) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version: string };
      if (name === NPM_CHROMIUM_PACKAGE) return version;
    }
    if (dirname(directory) === directory) throw new Error(`no package.json of ${NPM_CHROMIUM_PACKAGE} above its entry`);
    directory = dirname(directory);
  }
}

/** fontconfig's configuration: the machine's fonts where it has any, and the package's Open Sans always, so that text has a size even on a machine without fonts. */
function fontConfiguration(directory: string): string {
  const escape = (path: string): string => path.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${escape(join(directory, 'fonts'))}</dir>
  <cachedir>${escape(join(directory, 'fonts-cache'))}</cachedir>
</fontconfig>
`;
}

/** How old a staging directory must be to count as left by a run that was killed while unpacking. */
const ABANDONED_STAGING_MS = 60 * 60 * 1000;

/** Other versions' browsers (about 200 MB each), and staging directories of killed runs. */
function removeLeftovers(cacheDirectory: string, version: string): void {
  for (const entry of readdirSync(cacheDirectory)) {
    if (!entry.startsWith(UNPACKED_PREFIX) || entry === `${UNPACKED_PREFIX}${version}`) continue;
    const path = join(cacheDirectory, entry);
    if (entry.includes('.partial-') && Date.now() - statSync(path).mtimeMs < ABANDONED_STAGING_MS) continue;
    rmSync(path, { recursive: true, force: true });
  }
}

/**
 * The Chromium of @sparticuz/chromium, unpacked into `cacheDirectory/chromium-<version>`. The
 * package's own `executablePath()` unpacks into the temporary directory (TMPDIR), so it runs in a
 * child process whose TMPDIR is a fresh staging directory, renamed into place when complete:
 * concurrent runs never see half a browser, and another version never passes for this one.
 */
export function unpackNpmChromium(cacheDirectory: string = CACHE_DIRECTORY): ChromiumBinary {
  const version = npmChromiumVersion();
  const directory = join(cacheDirectory, `${UNPACKED_PREFIX}${version}`);
  const binary: ChromiumBinary = {
    executablePath: join(directory, 'chromium'),
    source: 'npm',
    description: `Chromium of the npm package ${NPM_CHROMIUM_PACKAGE}@${version}, unpacked at ${directory}`,
    env: { FONTCONFIG_FILE: join(directory, 'fonts.conf') },
  };
  if (existsSync(binary.executablePath)) return binary;

  mkdirSync(cacheDirectory, { recursive: true });
  const staging = mkdtempSync(join(cacheDirectory, `${UNPACKED_PREFIX}${version}.partial-`));
  try {
    const unpacked = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', `const { default: chromium } = await import('${NPM_CHROMIUM_PACKAGE}'); process.stdout.write(await chromium.executablePath());`],
      { cwd: root, env: { ...process.env, TMPDIR: staging }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    );
    if (dirname(unpacked) !== staging || !isExecutable(unpacked)) throw new Error(`${NPM_CHROMIUM_PACKAGE} unpacked its Chromium at ${unpacked}, not in ${staging}`);
    writeFileSync(join(staging, 'fonts.conf'), fontConfiguration(directory));
    try {
      renameSync(staging, directory);
    } catch (error) {
      // Another run unpacked the same version first: use that one.
      if (!existsSync(binary.executablePath)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  removeLeftovers(cacheDirectory, version);
  return binary;
}
