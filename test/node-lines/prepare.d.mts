/** A Node.js release from the npm registry's `node` package, installed by {@link installNode}. */
export interface InstalledNode {
  /** The line (`'24'`) or exact release (`'24.18.1'`) asked for. */
  line: string;
  /** The `node` binary. */
  binary: string;
  /** `process.version` of that binary, e.g. `v24.21.0`. */
  version: string;
  /** Its native module ABI (`process.versions.modules`). */
  abi: string;
  platform: string;
  arch: string;
  /** The directory that holds `include/node`, for node-gyp's `--nodedir`. */
  headers: string;
}

/** Where the Node.js releases, the better-sqlite3 builds and the copies are kept. */
export const cacheRoot: string;
/** The newest release of `line` (or the release it names), installed once from the npm registry's `node` package. */
export function installNode(line: string): InstalledNode;
