/**
 * The entry point of `create-acct-webhook`, bundled into packages/create-acct-webhook/dist/index.js
 * and started by that package's bin/create-acct-webhook.js. Everything testable lives in cli.ts;
 * this file only binds it to the process.
 */
import { runCli } from './cli.js';

void runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdinIsTTY: process.stdin.isTTY === true,
  stdoutIsTTY: process.stdout.isTTY === true,
  // The launcher; realpath in runCli follows node_modules/.bin links back into the package.
  scriptPath: process.argv[1] ?? '',
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((exitCode) => {
  process.exitCode = exitCode;
});
