import { isBuiltin } from 'node:module';
import { defineConfig, type Options } from 'tsup';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/** What a library user imports: built as ESM and CommonJS, with declarations for both. */
const LIBRARY_ENTRIES = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  dispatcher: 'src/dispatcher/index.ts',
  sqlite: 'src/sqlite/index.ts',
  postgres: 'src/postgres/index.ts',
  dashboard: 'src/dashboard/index.ts',
  sandbox: 'src/sandbox/index.ts',
  catalog: 'src/catalog/index.ts',
  web: 'src/web/index.ts',
  fastify: 'src/fastify/index.ts',
  hono: 'src/hono/index.ts',
  koa: 'src/koa/index.ts',
  nestjs: 'src/nestjs/index.ts',
};

/**
 * Built as ESM only: `bin/acct-webhook.js` imports `dist/cli.js`, and `dist/internal.js` is for
 * this repository's benchmarks (neither is in `exports`, and internal.* is not packed).
 */
const ESM_ONLY_ENTRIES = {
  cli: 'src/cli/main.ts',
  internal: 'src/internal.ts',
};

const BUILTIN_NAMESPACE = 'node-builtin-for-commonjs';
const NODE_REQUIRE = 'node-require';

/**
 * The CLI bundles commander, a CommonJS package, which calls require() for Node's built-ins. In
 * an ES module esbuild turns those calls into a helper that needs a `require` in scope — the
 * reason for the `createRequire` banner this build used to put on every chunk, the library's
 * included. Instead, each built-in a bundled CommonJS module requires becomes a small module that
 * asks a `createRequire` for it: the only code that makes a `require` is the code that needs one,
 * in the CLI's chunks, and it runs when commander is loaded. Library code never calls require()
 * (src/optional-package.ts makes its own `createRequire`), so this changes nothing there.
 */
const builtinsForBundledCommonJs: EsbuildPlugin = {
  name: 'builtins-for-bundled-commonjs',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.namespace === BUILTIN_NAMESPACE && args.path === NODE_REQUIRE) return { path: NODE_REQUIRE, namespace: BUILTIN_NAMESPACE };
      if (args.kind !== 'require-call' || !isBuiltin(args.path)) return undefined;
      return { path: args.path.startsWith('node:') ? args.path : `node:${args.path}`, namespace: BUILTIN_NAMESPACE };
    });
    build.onLoad({ filter: /.*/, namespace: BUILTIN_NAMESPACE }, (args) => ({
      loader: 'js',
      contents:
        args.path === NODE_REQUIRE
          ? "import { createRequire } from 'node:module'; export const nodeRequire = createRequire(import.meta.url);"
          : `module.exports = require(${JSON.stringify(NODE_REQUIRE)}).nodeRequire(${JSON.stringify(args.path)});`,
    }));
  },
};

// One build, two module formats: `import` gets ESM, `require` gets CJS, each with its own
// declarations. Shared code is split into chunks so that both `acct-webhook` and
// `acct-webhook/dispatcher` see the same error classes within one format, and so that the CLI
// shares the library's chunks instead of carrying a copy. The scaffolder is built into its own
// package, packages/create-acct-webhook.
//
// What is not packed: source maps (none are built; the tests and the inner loop run src/ itself;
// `npx tsup --sourcemap` builds them for debugging dist/), a CommonJS CLI, and the packages a
// user installs for a feature: dependencies and peers are external (tsup's default), the optional
// peers included — the OpenTelemetry SDK and Prometheus exporter of `dispatcher run
// --metrics-port`, pg, better-sqlite3. Only commander, a development dependency the CLI
// needs, is bundled (it never reaches a library user's install).
export default defineConfig({
  entry: { ...LIBRARY_ENTRIES, ...ESM_ONLY_ENTRIES },
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'node',
  // Keeps `node:` in the output's imports (Node.js 20 needs no help with them); tsup's own plugin
  // that strips it would also resolve the built-ins before builtinsForBundledCommonJs sees them.
  removeNodeProtocol: false,
  dts: { entry: LIBRARY_ENTRIES },
  splitting: true,
  sourcemap: false,
  clean: true,
  treeshake: false,
  // Gives the CJS output an `import.meta.url`, for src/optional-package.ts's createRequire (and
  // src/sqlite's); see esbuildOptions for the ESM output.
  shims: true,
  // esbuild's dependency graph, per format (dist/metafile-*.json, not packed): the package test
  // maps the files a library import loads back to their sources.
  metafile: true,
  esbuildPlugins: [builtinsForBundledCommonJs],
  esbuildOptions(options, { format }) {
    if (format === 'esm') {
      // Whitespace and syntax only: names stay (stack traces and `error.name` read as in src/),
      // and there are no source maps to keep in line. Keeps the package within issue 22's budget
      // (≤ 2.5 MB unpacked) with the adapters, the web entry and the generated validators added.
      // Not the CommonJS output: tsup rewrites its optional chains after esbuild, and on minified
      // code that rewrite produced `awaitawait` (test/optional-package.integration.test.ts).
      options.minifyWhitespace = true;
      options.minifySyntax = true;
      // `shims` is for the CommonJS output; in ESM it would only add a no-op `__dirname` module
      // that every lazily run module calls (no source uses `__dirname` or `__filename`).
      if (options.inject) options.inject = options.inject.filter((file) => !/[\\/]esm_shims\.js$/.test(file));
      return;
    }
    // The CommonJS build is the library only.
    options.entryPoints = LIBRARY_ENTRIES;
  },
});
