#!/usr/bin/env node
import { existsSync } from 'node:fs';

// The published package always holds dist/; a checkout has it only once built (installing it
// builds nothing: the package has no prepare script).
const cli = new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) {
  import(cli.href);
} else {
  process.stderr.write('acct-webhook: dist/cli.js is missing: this is a checkout that was not built; run npm run build in it first\n');
  process.exitCode = 1;
}
