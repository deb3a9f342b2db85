import { defineConfig } from 'tsup';

// One build, two module formats: `import` gets ESM, `require` gets CJS, each with its own
// declarations. Shared code is split into chunks so that both `acct-webhook` and
// `acct-webhook/dispatcher` see the same error classes within one format. The scaffolder is built
// into its own package, packages/create-acct-webhook. `shims` gives the CJS
// output an `import.meta.url`: src/sqlite/driver.ts loads better-sqlite3 with createRequire
// when a SQLite store is created, never at import.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
    dispatcher: 'src/dispatcher/index.ts',
    sqlite: 'src/sqlite/index.ts',
    postgres: 'src/postgres/index.ts',
    dashboard: 'src/dashboard/index.ts',
    sandbox: 'src/sandbox/index.ts',
    catalog: 'src/catalog/index.ts',
    cli: 'src/cli/main.ts',
    internal: 'src/internal.ts',
  },
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'node',
  dts: true,
  splitting: true,
  sourcemap: true,
  clean: true,
  treeshake: false,
  shims: true,
  // The CLI bundles commander (a dev dependency, so it never reaches a library user's install);
  // bundled CommonJS calls require() for Node's built-ins, which an ES module has not.
  // The CLI's `dispatcher run --metrics-port` bundles the OpenTelemetry SDK and its Prometheus
  // exporter (dev dependencies) and the API they call: `@opentelemetry/api` is an optional peer
  // of the library, which only takes a Meter and never imports it, so it is bundled here too.
  noExternal: ['@opentelemetry/api'],
  banner: ({ format }) =>
    format === 'esm' ? { js: "import { createRequire as __acctWebhookCreateRequire } from 'node:module'; const require = __acctWebhookCreateRequire(import.meta.url);" } : {},
});
