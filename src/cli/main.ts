/**
 * The entry point of `acct-webhook`, built to dist/cli.js and started by bin/acct-webhook.js.
 * Everything lives in run.ts and the command modules; this file only binds them to the process.
 */
import { realpathSync } from 'node:fs';
import { EXIT_CODES } from '../cli-kit/exit-codes.js';
import { findPackageRoot, readManifest } from '../cli-kit/package-root.js';
import { onClosedOutput } from './closed-output.js';
import { runCli } from './run.js';
import { ProcessStopRequests } from './signals.js';

const PACKAGE_NAME = 'acct-webhook';

/** The version of the package this launcher belongs to (node_modules/.bin links are followed). */
function packageVersion(): string {
  const launcher = process.argv[1];
  const root = launcher === undefined ? undefined : findPackageRoot(realpathSync(launcher), PACKAGE_NAME);
  return (root === undefined ? undefined : readManifest(root)?.version) ?? '0.0.0';
}

const stopRequests = new ProcessStopRequests();
let outputClosed = false;
onClosedOutput([process.stdout, process.stderr], () => {
  outputClosed = true;
  // A long-running command stops as on SIGTERM, finishing what is in flight (an attempt cut off
  // mid-way could be sent twice); any other command ends here, as a Unix tool ended by SIGPIPE.
  if (!stopRequests.request('closed_output')) process.exit(EXIT_CODES.closedOutput);
});

void runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  version: packageVersion(),
  stopRequests,
}).then((exitCode) => {
  process.exitCode = outputClosed ? EXIT_CODES.closedOutput : exitCode;
});
