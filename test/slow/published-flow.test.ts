import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { childEnvironment, readJson, REPO_VERSION, runGenerator, runProcess, temporaryDirectory, type ProcessResult } from '../scaffold/helpers.js';
import { LocalRegistry } from './local-registry.js';
import { seedRegistry } from './registry-seed.js';

/**
 * The install flow as users will have it once both packages are published: `npm create
 * acct-webhook@latest my-app` and `npx create-acct-webhook my-app` against a registry. The
 * registry is a verdaccio on 127.0.0.1 without uplinks; both packages are packed (by the global
 * setup) and published to it, and so is every package a generated project installs, taken from
 * the public registry once (through npm's cache) and published from there.
 */

interface Lockfile {
  packages: Record<string, { version?: string; resolved?: string } | undefined>;
}

interface Manifest {
  dependencies: Record<string, string>;
}

const NPM_FLAGS = ['--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'];
/** Set by npm for the scripts it runs (`npm test`): they carry the user's npm configuration. */
const NPM_VARIABLES = /^npm_/i;

/** How long each phase took, printed as it ends and once more at the end. */
const timings: string[] = [];
async function phase<T>(name: string, body: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await body();
  } finally {
    const line = `${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  ${name}`;
    timings.push(line);
    console.log(`published flow: ${line.trim()}`);
  }
}

/**
 * An npm user whose only registry is the local one: the npm configuration and cache are fresh
 * files in `directory`, and nothing of the calling user's npm settings is inherited.
 */
function npmUser(directory: string, settings: readonly string[]): NodeJS.ProcessEnv {
  mkdirSync(directory, { recursive: true });
  const userconfig = join(directory, 'npmrc');
  writeFileSync(userconfig, `${settings.join('\n')}\n`);
  const env = childEnvironment();
  for (const name of Object.keys(env)) if (NPM_VARIABLES.test(name)) delete env[name];
  return { ...env, npm_config_userconfig: userconfig, npm_config_cache: join(directory, 'cache') };
}

function expectSuccess(run: ProcessResult): void {
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
}

describe('the published install flow, against a local registry', () => {
  const workspace = temporaryDirectory('published-flow');
  const directory = (name: string): string => {
    const path = join(workspace.path, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  let registry: LocalRegistry | undefined;
  /** The user who runs `npm create`: the local registry and nothing else. */
  let user: NodeJS.ProcessEnv;
  /** An empty directory, as a user starts in. */
  let start: string;

  beforeAll(async () => {
    const local = await phase('start verdaccio', () => LocalRegistry.start(directory('registry')));
    registry = local;
    const resolving = join(directory('resolve'), 'my-app');

    await phase('resolve what a generated project installs (public registry, npm cache)', async () => {
      expectSuccess(await runGenerator(['my-app', '--yes', '--no-install', '--no-git'], join(resolving, '..')));
      // The local build stands in for acct-webhook, which the public registry does not have at this version.
      const manifest = readJson<Manifest & Record<string, unknown>>(join(resolving, 'package.json'));
      manifest.dependencies['acct-webhook'] = `file:${inject('tarball')}`;
      writeFileSync(join(resolving, 'package.json'), JSON.stringify(manifest, null, 2));
      expectSuccess(await runProcess('npm', ['install', ...NPM_FLAGS], resolving));
    });

    const seeder = await local.addUser('seeder');
    const seeded = await phase('seed the registry with those packages', () => seedRegistry(local, seeder, resolving, directory('tarballs'), childEnvironment()));
    console.log(`published flow: ${seeded} package versions seeded`);

    const publisher = npmUser(directory('publisher'), [`registry=${local.url}`, `${local.credentialsKey}:_authToken=${await local.addUser('publisher')}`, 'update-notifier=false']);
    await phase('npm publish acct-webhook and create-acct-webhook', async () => {
      for (const tarball of [inject('tarball'), inject('createTarball')]) expectSuccess(await runProcess('npm', ['publish', tarball], workspace.path, publisher));
    });

    user = npmUser(directory('user'), [
      `registry=${local.url}`,
      // npm exec installs create-acct-webhook without asking, as a user answers "y".
      'yes=true',
      // better-sqlite3's install script downloads its binary from GitHub, which is out of reach
      // (only the registry is); the generated tests use the in-memory store and need no binding.
      'ignore-scripts=true',
      'audit=false',
      'fund=false',
      'update-notifier=false',
    ]);
    start = directory('empty');
  });

  afterAll(async () => {
    await registry?.stop();
    workspace.remove();
    console.log(`published flow, phases (packing both packages is the global setup's):\n${timings.join('\n')}`);
  });

  /** The generated project's acct-webhook came from the local registry, at this repository's version. */
  function expectAcctWebhookFromLocalRegistry(project: string): void {
    expect(readJson<Manifest>(join(project, 'package.json')).dependencies['acct-webhook']).toBe(`^${REPO_VERSION}`);
    const locked = readJson<Lockfile>(join(project, 'package-lock.json')).packages['node_modules/acct-webhook'];
    expect(locked?.version).toBe(REPO_VERSION);
    expect(locked?.resolved?.startsWith(registry!.url)).toBe(true);
  }

  it('npm create acct-webhook@latest my-app -- --yes generates and installs a project that passes its own tests', async () => {
    const create = await phase('npm create acct-webhook@latest my-app -- --yes (generate, install)', () =>
      runProcess('npm', ['create', 'acct-webhook@latest', 'my-app', '--', '--yes'], start, user),
    );
    expectSuccess(create);
    // Installed from a registry: nothing to say about how acct-webhook was written.
    expect(create.stdout).not.toContain('acct-webhook is written as');
    const project = join(start, 'my-app');
    expectAcctWebhookFromLocalRegistry(project);

    const test = await phase('npm test in my-app', () => runProcess('npm', ['test'], project, user));
    expectSuccess(test);
    // Its seven tests: the four of the receiver, /health and /ready (test/slow/scaffold-projects.test.ts).
    expect(test.stdout).toMatch(/Tests\s+7 passed \(7\)/);
  });

  it('npx create-acct-webhook my-app2 --yes does the same', async () => {
    const create = await phase('npx create-acct-webhook my-app2 --yes (generate, install)', () =>
      runProcess('npx', ['create-acct-webhook', 'my-app2', '--yes'], start, user),
    );
    expectSuccess(create);
    expectAcctWebhookFromLocalRegistry(join(start, 'my-app2'));
  });
});
