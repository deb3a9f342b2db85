import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runProcess } from '../scaffold/helpers.js';
import type { LocalRegistry, PackageVersion } from './local-registry.js';

/** Requests in flight while seeding: verdaccio is one process, more only queue up. */
const PUBLISH_CONCURRENCY = 8;

/** The part of npm's hidden lockfile (`node_modules/.package-lock.json`) read here. */
interface HiddenLockfile {
  packages: Record<string, { name?: string; version?: string; resolved?: string; link?: boolean } | undefined>;
}

/** One package installed in a project: where it lies, and what it is. */
interface InstalledPackage {
  name: string;
  version: string;
  directory: string;
}

/** What `npm pack --json` reports about each tarball it wrote. */
interface PackedTarball {
  name: string;
  version: string;
  filename: string;
  integrity: string;
  shasum: string;
}

/**
 * Every package@version installed in `project` that came from a registry, once each: the hidden
 * lockfile lists exactly what is on disk (optional packages of other platforms are left out).
 * Linked and `file:` packages (a local tarball) are not the registry's to serve.
 */
export function installedPackages(project: string): InstalledPackage[] {
  const lockfile = JSON.parse(readFileSync(join(project, 'node_modules', '.package-lock.json'), 'utf8')) as HiddenLockfile;
  const packages = new Map<string, InstalledPackage>();
  for (const [path, entry] of Object.entries(lockfile.packages)) {
    if (entry?.version === undefined || entry.link === true || entry.resolved?.startsWith('file:') === true) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    packages.set(`${name}@${entry.version}`, { name, version: entry.version, directory: join(project, path) });
  }
  return [...packages.values()];
}

/** Tarballs of many registry packages in one npm call, from npm's cache where they are (an install just put them there). */
async function packFromCache(specs: readonly string[], destination: string, env: NodeJS.ProcessEnv): Promise<PackedTarball[]> {
  const run = await runProcess('npm', ['pack', '--json', '--prefer-offline', '--pack-destination', destination, ...specs], destination, env);
  if (run.exitCode !== 0) throw new Error(`npm pack failed (${run.exitCode}): ${run.stderr}`);
  return JSON.parse(run.stdout) as PackedTarball[];
}

/** Semantic-version order, enough for versions in a lockfile: numbers by value, a pre-release before its release. */
export function compareVersions(a: string, b: string): number {
  const split = (version: string): [number[], string | undefined] => {
    const dash = version.indexOf('-');
    const core = dash < 0 ? version : version.slice(0, dash);
    return [core.split('.').map(Number), dash < 0 ? undefined : version.slice(dash + 1)];
  };
  const [coreA, preA] = split(a);
  const [coreB, preB] = split(b);
  for (let index = 0; index < Math.max(coreA.length, coreB.length); index++) {
    const difference = (coreA[index] ?? 0) - (coreB[index] ?? 0);
    if (difference !== 0) return difference;
  }
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return preA.localeCompare(preB, 'en', { numeric: true });
}

/**
 * Publishes every registry package installed in `project` to `registry`, so that the same
 * install against it — which has no uplink — finds each one. Tarballs come from npm's cache
 * (`scratch` receives them); several packages are published at once, the versions of one
 * package in ascending order so that the highest is `latest`, as on the public registry.
 * Returns how many versions were published.
 */
export async function seedRegistry(registry: LocalRegistry, token: string, project: string, scratch: string, env: NodeJS.ProcessEnv): Promise<number> {
  const installed = new Map(installedPackages(project).map((entry) => [`${entry.name}@${entry.version}`, entry]));
  const packed = await packFromCache([...installed.keys()], scratch, env);
  const byName = new Map<string, PackageVersion[]>();
  for (const tarball of packed) {
    const entry = installed.get(`${tarball.name}@${tarball.version}`);
    if (entry === undefined) throw new Error(`npm pack returned ${tarball.name}@${tarball.version}, which is not installed`);
    const version: PackageVersion = {
      name: tarball.name,
      version: tarball.version,
      manifest: JSON.parse(readFileSync(join(entry.directory, 'package.json'), 'utf8')) as Record<string, unknown>,
      tarball: readFileSync(join(scratch, tarball.filename)),
      integrity: tarball.integrity,
      shasum: tarball.shasum,
    };
    byName.set(tarball.name, [...(byName.get(tarball.name) ?? []), version]);
  }
  const queue = [...byName.values()].map((versions) => versions.sort((a, b) => compareVersions(a.version, b.version)));
  const publishNext = async (): Promise<void> => {
    for (let versions = queue.shift(); versions !== undefined; versions = queue.shift()) {
      for (const version of versions) await registry.publish(version, token);
    }
  };
  await Promise.all(Array.from({ length: PUBLISH_CONCURRENCY }, publishNext));
  return packed.length;
}
