/**
 * The entry point of `acct-webhook`, built to dist/cli.js and started by bin/acct-webhook.js.
 * Everything lives in run.ts and the command modules; this file only binds them to the process.
 */
import { realpathSync } from 'node:fs';
import { findPackageRoot, readManifest } from '../cli-kit/package-root.js';
import { runCli } from './run.js';

const PACKAGE_NAME = 'acct-webhook';

/** The version of the package this launcher belongs to (node_modules/.bin links are followed). */
function packageVersion(): string {
  const launcher = process.argv[1];
  const root = launcher === undefined ? undefined : findPackageRoot(realpathSync(launcher), PACKAGE_NAME);
  return (root === undefined ? undefined : readManifest(root)?.version) ?? '0.0.0';
}

void runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  version: packageVersion(),
}).then((exitCode) => {
  process.exitCode = exitCode;
});
