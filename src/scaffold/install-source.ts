import { existsSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';

/** The part of npm's hidden lockfile (`node_modules/.package-lock.json`) read here. */
interface HiddenLockfile {
  packages?: Record<string, { resolved?: string; link?: boolean } | undefined>;
}

/**
 * Whether the create package at `packageRoot` (a real path) was installed from a registry —
 * `npm create acct-webhook`, `npx create-acct-webhook`, an install of a published version —
 * where the acct-webhook of its version is published too. Otherwise it runs from a checkout
 * (outside any node_modules; a workspace link resolves into the checkout) or from a packed
 * tarball (npm's hidden lockfile records a `file:` source), and `^<version>` may not be
 * installable yet. Without a record (pnpm, yarn, a global install) a registry is assumed: the
 * common case, and the one that needs no advice.
 */
export function isRegistryInstall(packageRoot: string): boolean {
  const segments = packageRoot.split(sep);
  const first = segments.indexOf('node_modules');
  if (first < 0) return false;
  const project = segments.slice(0, first).join(sep);
  const key = segments.slice(first).join('/');
  const entry = readHiddenLockfile(join(project, 'node_modules', '.package-lock.json'))?.packages?.[key];
  return !(entry?.link === true || entry?.resolved?.startsWith('file:') === true);
}

function readHiddenLockfile(file: string): HiddenLockfile | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as HiddenLockfile;
  } catch {
    // A damaged lockfile says nothing about the source; the advice is only a hint.
    return undefined;
  }
}
