#!/usr/bin/env node
import { existsSync } from 'node:fs';

// The published package always holds dist/; a checkout has it only once built (npm run build at
// the repository's root builds this package too).
const cli = new URL('../dist/index.js', import.meta.url);
if (existsSync(cli)) {
  import(cli.href);
} else {
  process.stderr.write('create-acct-webhook: dist/index.js is missing: this is a checkout that was not built; run npm run build at its root first\n');
  process.exitCode = 1;
}
