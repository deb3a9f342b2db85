/*
 * The JavaScript runtime a process runs on, for the messages that depend on it: better-sqlite3
 * runs on Node.js only, while Bun and Deno bring a node:sqlite of their own (docs/runtimes.md).
 */

/** The runtimes this package is tested on. */
export type RuntimeName = 'Node.js' | 'Bun' | 'Deno';

/** A runtime and its version, as messages name it. */
export interface Runtime {
  name: RuntimeName;
  /** Its own version: `1.4.5` for Bun, `2.9.6` for Deno, `v24.1.0` for Node.js (as `process.version` says it). */
  version: string;
}

/**
 * The runtime of this process. Bun and Deno both present themselves as a Node.js (`process.version`
 * is the Node.js line they follow), and add their own entry to `process.versions`.
 * @example
 * `${currentRuntime().name} ${currentRuntime().version}`   // 'Bun 1.4.5'
 */
export function currentRuntime(versions: NodeJS.ProcessVersions = process.versions): Runtime {
  const own = versions as NodeJS.ProcessVersions & { bun?: string; deno?: string };
  if (own.bun !== undefined) return { name: 'Bun', version: own.bun };
  if (own.deno !== undefined) return { name: 'Deno', version: own.deno };
  return { name: 'Node.js', version: `v${versions.node}` };
}

/** `Bun 1.4.5`, `Deno 2.9.6`, `Node.js v24.1.0`. */
export function runtimeLabel(runtime: Runtime = currentRuntime()): string {
  return `${runtime.name} ${runtime.version}`;
}
