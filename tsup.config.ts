import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { transform } from 'esbuild';
import { rollup } from 'rollup';
import { parseAst } from 'rollup/parseAst';
import { defineConfig, type Options } from 'tsup';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/** What a library user imports: built as ESM and CommonJS, with declarations for both. */
const LIBRARY_ENTRIES = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  dispatcher: 'src/dispatcher.ts',
  sqlite: 'src/stores/sqlite/index.ts',
  postgres: 'src/stores/postgres/index.ts',
  dashboard: 'src/dashboard/index.ts',
  sandbox: 'src/sandbox/index.ts',
  catalog: 'src/catalog/index.ts',
  client: 'src/client/index.ts',
  web: 'src/web.ts',
  fastify: 'src/adapters/fastify/index.ts',
  hono: 'src/adapters/hono/index.ts',
  koa: 'src/adapters/koa/index.ts',
  nestjs: 'src/adapters/nestjs/index.ts',
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
 * (src/kernel/optional-package.ts makes its own `createRequire`), so this changes nothing there.
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

interface Metafile {
  outputs: Record<string, { bytes: number; entryPoint?: string; inputs: Record<string, { bytesInOutput: number }>; imports: { path: string; kind: string; external?: boolean }[] }>;
}

/**
 * The files `import('acct-webhook')` loads, merged into four chunks (for the cold start). esbuild
 * splits shared code into one chunk per set of entries that reach it: with 15 entries and the
 * CLI's and dispatcher's lazy modules that made `dist/index.js` load 32 files, and on Node.js
 * every module the ES module loader resolves, reads, compiles and links costs about as much as
 * the code in it (a cold start measured 100 M instructions for the 32 files against 50 M for
 * the same code in one file; bench/history.md). Rollup re-chunks esbuild's ESM output: the
 * chunks `index.js` loads are grouped by which of `web.js` and `cli.js` load them too — so
 * acct-webhook/web still loads no Node-only code and `acct-webhook --help` no receiver code:
 * `receiver-web`, `receiver-node`, and the few small modules the CLI shares with the receiver,
 * `shared-web` and `shared-node`. Another entry that used one of those chunks now loads its whole
 * group (acct-webhook/catalog and /testing: the receiver's code, about 100 kB more than they
 * need). Everything else stays as esbuild chunked it, no code is
 * removed (`treeshake: false`), and every entry keeps its exports. The metafile is rewritten to
 * the new files (the package test maps the loaded files back to their sources with it).
 * The CommonJS output is not touched here (see minifyCommonJsWhitespace).
 */
/**
 * The CommonJS files without their whitespace, as the ESM output is built (the package's size
 * budget, test/slow/packaging.test.ts). Done here, on the finished files, rather than in esbuild's options: tsup
 * converts the CommonJS chunks with sucrase after esbuild, and on whitespace-minified input its
 * rewrite of an optional chain on an awaited value glues `awaitawait` and `returnawait`. Names,
 * syntax and statements stay as they are; test/slow/packaging.test.ts loads every entry.
 */
async function minifyCommonJsWhitespace(dist: string): Promise<void> {
  for (const file of readdirSync(dist).filter((name) => name.endsWith('.cjs'))) {
    const path = join(dist, file);
    const { code } = await transform(readFileSync(path, 'utf8'), { loader: 'js', minifyWhitespace: true, legalComments: 'inline', target: 'node20' });
    writeFileSync(path, code);
  }
}

/**
 * Node.js prints the source line of the statement that threw an uncaught error above the error
 * itself; in this whitespace-minified build that line is a whole module (10 kB and more of code
 * before, say, the SQLite store's one-line refusal). A line that holds the text
 * `node-do-not-add-exception-line` is left out of that report (node's src/node_errors.cc, the same
 * on every supported line), so each `throw` statement of the built files carries it as a comment
 * right after the keyword: the error's own line comes first. Found on the syntax tree (rollup's
 * parser), so no string or template literal is touched; about 35 bytes a throw.
 * test/receiver/uncaught-refusal.integration.test.ts runs a refusal uncaught.
 */
const NO_EXCEPTION_LINE = '/*node-do-not-add-exception-line*/';

function markThrowSites(dist: string): void {
  for (const file of readdirSync(dist).filter((name) => name.endsWith('.js') || name.endsWith('.cjs'))) {
    const path = join(dist, file);
    const code = readFileSync(path, 'utf8');
    const offsets: number[] = [];
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) {
        for (const child of node) visit(child);
      } else if (typeof node === 'object' && node !== null) {
        const { type, start } = node as { type?: unknown; start?: unknown };
        if (type === 'ThrowStatement' && typeof start === 'number') offsets.push(start + 'throw'.length);
        for (const [key, child] of Object.entries(node)) if (key !== 'type' && typeof child === 'object') visit(child);
      }
    };
    visit(parseAst(code, { allowReturnOutsideFunction: true }));
    if (offsets.length === 0) continue;
    // rollup's parser counts UTF-16 code units, as string indexes do.
    let marked = '';
    let from = 0;
    for (const offset of offsets.sort((a, b) => a - b)) {
      marked += code.slice(from, offset) + NO_EXCEPTION_LINE;
      from = offset;
    }
    writeFileSync(path, marked + code.slice(from));
  }
}

async function mergeReceiverChunks(dist: string): Promise<void> {
  const metafilePath = join(dist, 'metafile-esm.json');
  const metafile = JSON.parse(readFileSync(metafilePath, 'utf8')) as Metafile;
  const staticClosure = (output: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(output)) return seen;
    seen.add(output);
    for (const imported of metafile.outputs[output]?.imports ?? []) if (imported.kind === 'import-statement' && !imported.external) staticClosure(imported.path, seen);
    return seen;
  };
  const outDir = basename(dist);
  const receiver = staticClosure(`${outDir}/index.js`);
  const web = staticClosure(`${outDir}/web.js`);
  const cli = staticClosure(`${outDir}/cli.js`);
  const entries = Object.keys({ ...LIBRARY_ENTRIES, ...ESM_ONLY_ENTRIES });
  const bundle = await rollup({
    input: Object.fromEntries(entries.map((name) => [name, join(dist, `${name}.js`)])),
    external: (id) => isBuiltin(id) || !/^[./]/.test(id),
    treeshake: false,
    onwarn(warning, warn) {
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
    },
  });
  const { output } = await bundle.generate({
    format: 'es',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    compact: true,
    generatedCode: 'es2015',
    hoistTransitiveImports: false,
    manualChunks(id) {
      const file = `${outDir}/${basename(id)}`;
      if (file === `${outDir}/index.js` || !receiver.has(file)) return undefined;
      return `${cli.has(file) ? 'shared' : 'receiver'}-${web.has(file) ? 'web' : 'node'}`;
    },
  });
  await bundle.close();
  const outputs: Metafile['outputs'] = {};
  for (const chunk of output) {
    if (chunk.type !== 'chunk') continue;
    const inputs: Metafile['outputs'][string]['inputs'] = {};
    for (const id of Object.keys(chunk.modules)) Object.assign(inputs, metafile.outputs[`${outDir}/${basename(id)}`]?.inputs);
    const entryPoint = chunk.facadeModuleId ? metafile.outputs[`${outDir}/${basename(chunk.facadeModuleId)}`]?.entryPoint : undefined;
    outputs[`${outDir}/${chunk.fileName}`] = {
      bytes: Buffer.byteLength(chunk.code),
      ...(entryPoint === undefined ? {} : { entryPoint }),
      inputs,
      imports: [
        ...chunk.imports.map((path) => (isBuiltin(path) || !path.endsWith('.js') ? { path, kind: 'import-statement', external: true } : { path: `${outDir}/${path}`, kind: 'import-statement' })),
        ...chunk.dynamicImports.map((path) => ({ path: `${outDir}/${path}`, kind: 'dynamic-import' })),
      ],
    };
  }
  for (const file of readdirSync(dist)) if (file.endsWith('.js')) rmSync(join(dist, file));
  for (const chunk of output) writeFileSync(join(dist, chunk.fileName), chunk.type === 'chunk' ? chunk.code : chunk.source);
  writeFileSync(metafilePath, JSON.stringify({ ...metafile, outputs: { ...outputs, ...Object.fromEntries(Object.entries(metafile.outputs).filter(([file]) => !file.endsWith('.js'))) } }));
}

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
  // Gives the CJS output an `import.meta.url`, for src/kernel/optional-package.ts's createRequire (and
  // src/sqlite's); see esbuildOptions for the ESM output.
  shims: true,
  // esbuild's dependency graph, per format (dist/metafile-*.json, not packed): the package test
  // maps the files a library import loads back to their sources.
  metafile: true,
  esbuildPlugins: [builtinsForBundledCommonJs],
  // After both formats are written (tsup runs this once, before the declarations are done).
  onSuccess: async () => {
    await mergeReceiverChunks(resolve('dist'));
    await minifyCommonJsWhitespace(resolve('dist'));
    markThrowSites(resolve('dist'));
  },
  esbuildOptions(options, { format }) {
    if (format === 'esm') {
      // Whitespace and syntax only: names stay (stack traces and `error.name` read as in src/),
      // and there are no source maps to keep in line. Keeps the package within its size budget
      // (test/slow/packaging.test.ts) with the adapters, the web entry and the generated validators added.
      // Not the CommonJS output: tsup rewrites its optional chains after esbuild, and on minified
      // code that rewrite produced `awaitawait` (test/kernel/optional-package.integration.test.ts).
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
