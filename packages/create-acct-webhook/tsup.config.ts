import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig } from 'tsup';
import { GENERATOR_DATA_FILE, generatorData, type ManifestVersions } from '../../src/scaffold/generator-data.js';

const packageRoot = import.meta.dirname;
const repositoryRoot = resolve(packageRoot, '..', '..');

function readManifest(directory: string): ManifestVersions & Record<string, unknown> {
  return JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as ManifestVersions & Record<string, unknown>;
}

/**
 * Both packages carry acct-webhook's version, so that `npm create acct-webhook@1.2.3` writes
 * `acct-webhook@^1.2.3`, and need the same Node.js. The root's package.json is the one to
 * change; this copies what differs here.
 */
function syncSharedFields(acctWebhook: ManifestVersions): void {
  const manifest = readManifest(packageRoot);
  const shared = { version: acctWebhook.version, engines: acctWebhook.engines };
  if (JSON.stringify(shared) === JSON.stringify({ version: manifest.version, engines: manifest.engines })) return;
  writeFileSync(join(packageRoot, 'package.json'), `${JSON.stringify({ ...manifest, ...shared }, null, 2)}\n`);
  console.log(`create-acct-webhook: version and engines set to acct-webhook's (${acctWebhook.version}, node ${acctWebhook.engines?.node})`);
}

/** What the scaffolder reads at run time besides its code: the templates and the versions data. */
function writePackageData(): void {
  const acctWebhook = readManifest(repositoryRoot);
  syncSharedFields(acctWebhook);
  const data = generatorData(acctWebhook, readManifest(packageRoot));
  writeFileSync(join(packageRoot, ...GENERATOR_DATA_FILE.split('/')), `${JSON.stringify(data, null, 2)}\n`);
  // A copy, not a second source: templates/ at the repository's top level is the one to edit.
  rmSync(join(packageRoot, 'templates'), { recursive: true, force: true });
  cpSync(join(repositoryRoot, 'templates'), join(packageRoot, 'templates'), { recursive: true });
}

// One self-contained ES module: commander, @clack/prompts, zod and the event catalog are bundled,
// so the published package has no dependencies and `npm create` installs one package.
export default defineConfig({
  entry: { index: '../../src/scaffold/main.ts' },
  outDir: 'dist',
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  noExternal: [/./],
  // Bundled CommonJS (commander) calls require() for Node's built-ins; an ES module has none.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  splitting: false,
  sourcemap: false,
  dts: false,
  clean: true,
  onSuccess: () => Promise.resolve(writePackageData()),
});
