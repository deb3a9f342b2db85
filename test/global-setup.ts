import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import type { TestProject } from 'vitest/node';

/*
 * The global setup of the projects that use the built package (integration, postgres, slow; see
 * vitest.config.ts). The unit project has none: it imports src/ and never waits for a build.
 *
 * - Builds acct-webhook (dist/) and create-acct-webhook (packages/create-acct-webhook/dist/) only
 *   when their inputs changed. The inputs' content hash at the last build is kept in
 *   node_modules/.cache (not in dist/, which is packed), with the output's modification time: an
 *   edit that is undone, or a touched file, builds nothing. A build this setup did not make (npm
 *   run build by hand) is adopted when its output is newer than every input file and directory
 *   (a directory's time changes when a file in it is added or removed). Installing builds nothing
 *   (the package has no prepare script), so on a fresh clone (CI) this is the one build.
 * - Packs both packages (`npm pack`, about 2 s) only for the projects that install them.
 */

const root = resolve(import.meta.dirname, '..');
const createPackage = join(root, 'packages', 'create-acct-webhook');
const stateDirectory = join(root, 'node_modules', '.cache', 'acct-webhook-tests');

/** The projects whose tests install the packed tarballs (`inject('tarball')`). */
const PROJECTS_THAT_PACK: ReadonlySet<string> = new Set(['slow']);

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of `npm pack`'s tarball of this repository (acct-webhook); provided to the projects that pack. */
    tarball: string;
    /** Path of `npm pack`'s tarball of packages/create-acct-webhook; provided to the projects that pack. */
    createTarball: string;
  }
}

interface Build {
  /** Names it in the state file and in what the setup prints. */
  name: string;
  directory: string;
  /** Files and directories (relative to the repository) whose content the output depends on. */
  inputs: readonly string[];
  /** A file every build writes: its absence or a changed stamp means the build is not ours. */
  output: string;
}

// src/ holds both packages' code (the create package bundles src/scaffold and what it imports);
// the configurations and manifests decide entries, versions and the copied templates.
const BUILDS: readonly Build[] = [
  {
    name: 'acct-webhook',
    directory: root,
    inputs: ['src', 'package.json', 'tsconfig.json', 'tsup.config.ts'],
    output: join(root, 'dist', 'index.js'),
  },
  {
    name: 'create-acct-webhook',
    directory: createPackage,
    inputs: ['src', 'templates', 'package.json', 'packages/create-acct-webhook/package.json', 'packages/create-acct-webhook/tsup.config.ts'],
    output: join(createPackage, 'dist', 'index.js'),
  },
];

/** Every file under `path` (or `path` itself), relative to the repository, sorted. */
function filesOf(path: string): string[] {
  const absolute = join(root, path);
  if (!existsSync(absolute)) return [];
  if (!statSync(absolute).isDirectory()) return [path];
  return readdirSync(absolute, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** One hash over the names and contents of the inputs: a renamed, removed or edited file changes it. */
function inputsHash(inputs: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap(filesOf)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** What was built last: the inputs' hash and the output's modification time right after. */
interface BuildState {
  inputs: string;
  outputStamp: number;
}

function stateFile(build: Build): string {
  return join(stateDirectory, `${build.name}.build.json`);
}

function readState(build: Build): BuildState | undefined {
  try {
    return JSON.parse(readFileSync(stateFile(build), 'utf8')) as BuildState;
  } catch {
    return undefined;
  }
}

/** The newest modification time among the inputs: files, and directories (entries added or removed). */
function newestInputChange(inputs: readonly string[]): number {
  let newest = 0;
  for (const input of inputs) {
    const absolute = join(root, input);
    if (!existsSync(absolute)) continue;
    newest = Math.max(newest, statSync(absolute).mtimeMs);
    if (!statSync(absolute).isDirectory()) continue;
    for (const entry of readdirSync(absolute, { withFileTypes: true, recursive: true })) {
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

function writeState(build: Build, state: BuildState): void {
  mkdirSync(stateDirectory, { recursive: true });
  writeFileSync(stateFile(build), `${JSON.stringify(state)}\n`);
}

/** Whether the output is built from the inputs as they are now; adopts a build made elsewhere. */
function isCurrent(build: Build, inputs: string): boolean {
  if (!existsSync(build.output)) return false;
  const outputStamp = statSync(build.output).mtimeMs;
  const state = readState(build);
  if (state !== undefined && state.inputs === inputs && state.outputStamp === outputStamp) return true;
  if (outputStamp <= newestInputChange(build.inputs)) return false;
  writeState(build, { inputs, outputStamp });
  return true;
}

function buildIfChanged(build: Build): void {
  if (isCurrent(build, inputsHash(build.inputs))) return;
  console.log(`global setup: building ${build.name} (its sources changed since the last build)`);
  execFileSync('npx', ['tsup', '--silent'], { cwd: build.directory, stdio: 'inherit' });
  // Hashed after the build: the create package's build may rewrite its own package.json.
  writeState(build, { inputs: inputsHash(build.inputs), outputStamp: statSync(build.output).mtimeMs });
}

/** npm pack's tarball of the package in `directory`, written into `destination`. */
function pack(directory: string, destination: string): string {
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', destination], { cwd: directory, stdio: 'ignore' });
  const { name } = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { name: string };
  const tarball = readdirSync(destination).find((file) => file.startsWith(`${name}-`) && file.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball of ${name} into ${destination}`);
  return join(destination, tarball);
}

export default function setup(project: TestProject): (() => void) | undefined {
  // Vitest runs the projects' global setups one after the other: the first builds, the others
  // find the build current.
  for (const build of BUILDS) buildIfChanged(build);
  if (!PROJECTS_THAT_PACK.has(project.name)) return undefined;
  const packDirectory = mkdtempSync(join(tmpdir(), 'acct-webhook-pack-'));
  project.provide('tarball', pack(root, packDirectory));
  project.provide('createTarball', pack(createPackage, packDirectory));
  return () => rmSync(packDirectory, { recursive: true, force: true });
}
