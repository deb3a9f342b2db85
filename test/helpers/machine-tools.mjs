#!/usr/bin/env node
/*
 * What `npm test` needs beyond Node.js, npm and the npm packages, installed when it is missing:
 * `npm test` runs this first (`npm run test:tools` runs it alone). On Debian (or any system with
 * apt-get) it installs Debian's packages, as root or through `sudo -n`; elsewhere, or without the
 * right to install, it names them in one line and exits 1, so that nothing is skipped later.
 *
 *   ACCT_WEBHOOK_TOOLS=check   report what is missing, install nothing (exit 1 when something is)
 *
 * Which test needs what: docs/development.md#what-npm-test-installs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const onPath = (command) => spawnSync('sh', ['-c', 'command -v "$0"', command], { stdio: 'ignore' }).status === 0;
const succeeds = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
/** Debian's python3 when there is one (Debian's python3-jsonschema is installed for it). */
const python = () => (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

/**
 * better-sqlite3 is an optional dependency: where `npm ci` found no compiler it was left out, and
 * the SQLite tests need it (on Node.js 20 it is the only driver). Built from its sources with the
 * headers of this Node.js (nothing is downloaded but Debian's packages).
 */
function betterSqlite3Loads() {
  try {
    const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
    new Database(':memory:').close();
    return true;
  } catch {
    return false;
  }
}

/** Each tool: how it is found, Debian's package, and what needs it. */
export const MACHINE_TOOLS = [
  { name: 'go', present: () => onPath('go'), debian: 'golang', for: 'test/slow/other-languages.test.ts (the Go snippet)' },
  { name: 'php', present: () => onPath('php'), debian: 'php-cli', for: 'test/slow/other-languages.test.ts (the PHP snippet)' },
  { name: 'ruby', present: () => onPath('ruby'), debian: 'ruby', for: 'test/slow/other-languages.test.ts (the Ruby snippet)' },
  { name: 'javac and java', present: () => onPath('javac') && onPath('java'), debian: 'default-jdk-headless', for: 'test/slow/other-languages.test.ts (the Java snippet)' },
  { name: 'python3', present: () => onPath(python()), debian: 'python3', for: 'test/slow/other-languages.test.ts (the Python snippets); node-gyp' },
  { name: 'jsonschema for python3', present: () => succeeds(python(), ['-c', 'import jsonschema']), debian: 'python3-jsonschema', for: 'test/slow/other-languages.test.ts (the Python validator)' },
  { name: 'openssl', present: () => onPath('openssl'), debian: 'openssl', for: 'the signature tests that compare with openssl dgst' },
  { name: 'curl', present: () => onPath('curl'), debian: 'curl', for: "the README's Try it block (test/docs/try-it.integration.test.ts)" },
  { name: 'chromium', present: () => existsSync('/usr/bin/chromium'), debian: 'chromium', for: 'the browser project and the README render (else the npm package @sparticuz/chromium)', optional: true },
  { name: 'a C++ compiler and make', present: () => betterSqlite3Loads() || (onPath('make') && onPath('g++')), debian: ['make', 'g++'], for: 'building better-sqlite3 when npm ci could not' },
];

function missingTools() {
  return MACHINE_TOOLS.filter((tool) => !tool.present());
}

const packagesOf = (tools) => [...new Set(tools.flatMap((tool) => tool.debian))];

/** `apt-get install` as root, or through `sudo -n`; null when neither may install. */
function installer() {
  if (!onPath('apt-get')) return null;
  if (process.getuid?.() === 0) return [];
  return onPath('sudo') && succeeds('sudo', ['-n', 'true']) ? ['sudo', '-n'] : null;
}

function aptGet(prefix, args) {
  const [command, ...rest] = [...prefix, 'apt-get', ...args];
  return spawnSync(command, rest, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
}

function fail(message) {
  process.stderr.write(`npm test: ${message}\n`);
  process.exit(1);
}

function main() {
  const missing = missingTools();
  if (missing.length > 0) {
    const packages = packagesOf(missing);
    const list = missing.map((tool) => tool.name).join(', ');
    const prefix = process.env.ACCT_WEBHOOK_TOOLS === 'check' ? null : installer();
    if (prefix === null) {
      const required = missing.filter((tool) => !tool.optional);
      if (required.length > 0) fail(`missing ${list}; install them first: apt-get install -y ${packages.join(' ')} (docs/development.md#what-npm-test-installs)`);
    } else {
      process.stdout.write(`npm test: installing Debian's ${packages.join(' ')} (for ${list})\n`);
      // An outdated package list fails the install: read it again then, as .ci/run did.
      if (!aptGet(prefix, ['install', '-y', '--no-install-recommends', ...packages]) && !(aptGet(prefix, ['update']) && aptGet(prefix, ['install', '-y', '--no-install-recommends', ...packages]))) {
        fail(`apt-get could not install ${packages.join(' ')}`);
      }
      const still = missingTools().filter((tool) => !tool.optional);
      if (still.length > 0) fail(`still missing after apt-get: ${still.map((tool) => tool.name).join(', ')}`);
    }
  }
  if (!betterSqlite3Loads()) {
    process.stdout.write('npm test: building better-sqlite3 (npm rebuild better-sqlite3)\n');
    execFileSync('npm', ['rebuild', 'better-sqlite3'], { cwd: ROOT, stdio: 'inherit' });
    if (!betterSqlite3Loads()) fail('better-sqlite3 does not load after npm rebuild better-sqlite3');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
