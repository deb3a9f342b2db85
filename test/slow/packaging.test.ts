import { execFile } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { formatMessage } from 'publint/utils';
import { publint } from 'publint';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { childEnvironment, runProcess } from '../scaffold/helpers.js';

/*
 * What the packed packages cost and promise their users (docs/development.md, "The package"):
 * publint and attw find nothing, the tarball and a library install stay under the size targets,
 * and importing the library loads none of the CLI's or the dashboard's code.
 */

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const attw = join(root, 'node_modules', '.bin', 'attw');

/**
 * The tarball's budget, in npm's units (1 MB = 1,000,000 bytes, as `npm pack` prints them): 1.0
 * was 1.77 MB packed; the receiver, dispatcher, stores and dashboard fit in 0.6 MB. The /v1
 * client, Standard Webhooks with ed25519, the portal, the events feed and the test vectors
 * brought it to 0.64 MB and 2.76 MB; the budget leaves room for this line of features, not more.
 */
const MAX_PACKED_BYTES = 700_000;
const MAX_UNPACKED_BYTES = 3_000_000;
/** node_modules of `npm install acct-webhook --omit=optional` (no better-sqlite3), as `du` counts it: the package's own growth above included. */
const MAX_LIBRARY_INSTALL_BYTES = 12_500_000;

const mb = (bytes: number): string => `${(bytes / 1_000_000).toFixed(2)} MB`;

interface TarballEntry {
  path: string;
  size: number;
}

/** The files of a packed tarball with their sizes, without npm's `package/` prefix. */
async function tarballEntries(tarball: string): Promise<TarballEntry[]> {
  const { stdout } = await run('tar', ['-tvzf', tarball]);
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      // -rw-r--r-- 0/0  1234 1985-10-26 08:15 package/dist/index.js
      const [, size, path] = /^\S+\s+\S+\s+(\d+)\s+\S+\s+\S+\s+(.+)$/.exec(line)!;
      return { path: path!.replace(/^package\//, ''), size: Number(size) };
    });
}

/** What `du -s` counts for a directory: the blocks of every file, directory and link in it. */
function diskUsage(path: string): number {
  const stat = lstatSync(path);
  let bytes = stat.blocks * 512;
  if (stat.isDirectory()) for (const name of readdirSync(path)) bytes += diskUsage(join(path, name));
  return bytes;
}

describe.each([
  ['acct-webhook', () => inject('tarball')],
  ['create-acct-webhook', () => inject('createTarball')],
])('the %s tarball', (_name, tarball) => {
  it('publint: no error, warning or suggestion', async () => {
    const data = readFileSync(tarball());
    const { messages, pkg } = await publint({ pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) }, level: 'suggestion', strict: true });
    expect(messages.map((message) => `${message.type}: ${formatMessage(message, pkg) ?? message.code}`)).toEqual([]);
  });

  // attw's default profile, "strict": TypeScript's node10 resolution (moduleResolution "node",
  // the default with module "commonjs"), node16 from CommonJS and from ESM, and bundler — every
  // way a user's TypeScript can resolve the package. No rule is switched off.
  it('attw (strict profile): no problem in any resolution mode', async () => {
    const { stdout } = await run(attw, [tarball(), '--format', 'json']).catch((error: { stdout: string }) => error);
    const { problems } = JSON.parse(stdout) as { problems: unknown };
    expect(problems).toEqual({});
  });
});

describe('the acct-webhook tarball', () => {
  let entries: TarballEntry[];
  beforeAll(async () => {
    entries = await tarballEntries(inject('tarball'));
  });

  it(`is at most ${mb(MAX_PACKED_BYTES)} packed and ${mb(MAX_UNPACKED_BYTES)} unpacked`, () => {
    const packed = lstatSync(inject('tarball')).size;
    const unpacked = entries.reduce((sum, entry) => sum + entry.size, 0);
    console.log(`acct-webhook tarball: ${mb(packed)} packed, ${mb(unpacked)} unpacked, ${entries.length} files`);
    expect(packed).toBeLessThanOrEqual(MAX_PACKED_BYTES);
    expect(unpacked).toBeLessThanOrEqual(MAX_UNPACKED_BYTES);
  });

  it('holds no source map, no CommonJS CLI, no build metadata and no bench-only entry', () => {
    const paths = entries.map((entry) => entry.path);
    expect(paths.filter((path) => path.endsWith('.map') || /^dist\/(cli\.cjs|metafile-|internal\.)/.test(path))).toEqual([]);
    expect(paths).toContain('dist/cli.js');
  });

  it('has no ES module that needs a `require` in scope (no createRequire banner is needed anywhere)', () => {
    // esbuild's helper for a require() it could not resolve at build time; it throws
    // "Dynamic require of … is not supported" unless a banner defines `require`.
    const modules = entries.filter((entry) => entry.path.endsWith('.js') && entry.path.startsWith('dist/'));
    expect(modules.length).toBeGreaterThan(10);
    const needing = modules.filter((entry) => readFileSync(join(root, entry.path), 'utf8').includes('Dynamic require of'));
    expect(needing.map((entry) => entry.path)).toEqual([]);
  });
});

/** Which source files each built file was made from (esbuild's metafile of the same build). */
function builtFrom(format: 'esm' | 'cjs'): Map<string, string[]> {
  const metafile = JSON.parse(readFileSync(join(root, 'dist', `metafile-${format}.json`), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  return new Map(Object.entries(metafile.outputs).map(([output, { inputs }]) => [output, Object.keys(inputs)]));
}

/** Sources a library entry must not load: the CLI, the scaffolder, and bundled packages. */
const NEVER = ['src/cli/', 'src/cli-kit/', 'src/scaffold/', 'node_modules/commander/', 'node-builtin-for-commonjs:'];

const LIBRARY_ENTRIES: [entry: string, alsoNever: string[]][] = [
  ['acct-webhook', ['src/dashboard/', 'src/sandbox/']],
  ['acct-webhook/testing', ['src/dashboard/', 'src/sandbox/']],
  ['acct-webhook/dispatcher', ['src/dashboard/', 'src/sandbox/']],
  ['acct-webhook/sqlite', ['src/dashboard/', 'src/sandbox/']],
  ['acct-webhook/postgres', ['src/dashboard/', 'src/sandbox/']],
  ['acct-webhook/sandbox', ['src/dashboard/']],
  ['acct-webhook/dashboard', ['src/sandbox/']],
  ['acct-webhook/web', ['src/dashboard/', 'src/sandbox/', 'src/stores/sqlite/', 'src/platform/node.ts', 'src/platform/node-dispatcher.ts', 'src/signing/signature.ts']],
  ['acct-webhook/fastify', ['src/dashboard/', 'src/sandbox/']],
  ['acct-webhook/hono', ['src/dashboard/', 'src/sandbox/']],
  ['acct-webhook/koa', ['src/dashboard/', 'src/sandbox/']],
];

// Installed as a library user installs it: no optional dependency (better-sqlite3), no peer.
describe('a library install: npm install <tarball> --omit=optional', () => {
  let project: string;
  let installed: string;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'acct-webhook-lean-'));
    installed = join(project, 'node_modules', 'acct-webhook');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    await run('npm', ['install', '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline', inject('tarball')], { cwd: project });
    // Records every module the ES module loader loads, in a file named by the environment.
    writeFileSync(join(project, 'record-loads.mjs'), `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(process.env.LOADS_FILE, url + '\\n'); return next(url, context); }\n`);
    writeFileSync(join(project, 'register-hooks.mjs'), `import { register } from 'node:module';\nregister('./record-loads.mjs', import.meta.url);\n`);
  });

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it(`is at most ${mb(MAX_LIBRARY_INSTALL_BYTES)} of node_modules, without pino, OpenTelemetry or commander`, () => {
    const modules = join(project, 'node_modules');
    const bytes = diskUsage(modules);
    const packages = readdirSync(modules).flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((scoped) => `${name}/${scoped}`) : [name]));
    console.log(`library install: ${mb(bytes)} of node_modules (du), ${packages.length} packages: ${packages.filter((name) => !name.startsWith('.')).join(' ')}`);
    expect(bytes).toBeLessThanOrEqual(MAX_LIBRARY_INSTALL_BYTES);
    expect(packages.filter((name) => /^(pino|@opentelemetry\/|commander$|better-sqlite3$)/.test(name))).toEqual([]);
  });

  /** The files of the installed package's dist/ that `program` loads in a fresh process. */
  async function loadedDistFiles(format: 'esm' | 'cjs', entry: string): Promise<string[]> {
    const loads = join(project, `loads-${format}-${entry.replaceAll('/', '-')}.txt`);
    writeFileSync(loads, '');
    const args =
      format === 'esm'
        ? ['--import', './register-hooks.mjs', '--input-type=module', '-e', `await import('${entry}');`]
        : ['-e', `require('${entry}'); require('node:fs').writeFileSync(process.env.LOADS_FILE, Object.keys(require.cache).join('\\n'));`];
    const result = await runProcess(process.execPath, args, project, childEnvironment({ LOADS_FILE: loads }));
    expect(result.exitCode, result.stderr).toBe(0);
    return readFileSync(loads, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (line.startsWith('file:') ? fileURLToPath(line) : line))
      .filter((path) => path.startsWith(installed + sep))
      .map((path) => relative(installed, path).split(sep).join('/'))
      .filter((path) => path.startsWith('dist/'));
  }

  describe.each(['esm', 'cjs'] as const)('loaded as %s', (format) => {
    const sources = builtFrom(format);

    it.each(LIBRARY_ENTRIES)('%s loads no CLI, scaffolder or bundled package code, and not %s', async (entry, alsoNever) => {
      const files = await loadedDistFiles(format, entry);
      expect(files.length).toBeGreaterThan(0);
      const unknown = files.filter((file) => !sources.has(file));
      expect(unknown, 'loaded files the metafile does not know: dist/ and the tarball are of different builds').toEqual([]);
      const loadedSources = [...new Set(files.flatMap((file) => sources.get(file)!))];
      if (entry === 'acct-webhook') console.log(`import of acct-webhook (${format}): ${files.length} files of dist/, ${loadedSources.length} source modules`);
      const forbidden = [...NEVER, ...alsoNever];
      expect(loadedSources.filter((source) => forbidden.some((prefix) => source.startsWith(prefix)))).toEqual([]);
      expect(loadedSources.filter((source) => source.startsWith('node_modules/') && source !== 'node_modules/tsup/assets/cjs_shims.js')).toEqual([]);
    });
  });

  it('its CLI: dispatcher run --metrics-port without OpenTelemetry says in one line what to install, exit 2', async () => {
    const result = await runProcess(process.execPath, [join(installed, 'bin', 'acct-webhook.js'), 'dispatcher', 'run', '--metrics-port', '0'], project);
    expect(result.stderr).toBe(
      'acct-webhook dispatcher run: --metrics-port needs the @opentelemetry/sdk-metrics, @opentelemetry/exporter-prometheus and @opentelemetry/api packages, ' +
        'which are not installed: npm install @opentelemetry/sdk-metrics @opentelemetry/exporter-prometheus @opentelemetry/api [INVALID_CONFIGURATION]\n',
    );
    expect(result.exitCode).toBe(2);
  });
});
