/*
 * The architecture of src/, as a rule `npm test` checks (test/architecture.test.ts; by hand:
 * `npm run lint:layers`). docs/architecture.md explains it.
 *
 * Each layer names its folders and the layers it may import; an import between two layers that
 * the table does not allow fails. Imports within a layer are always allowed. Type-only imports
 * count like the others (`tsPreCompilationDeps`), and no cycle is allowed, of any kind.
 *
 * To add a layer (a framework adapter, the HTTP edge), add a row and list it where it may be
 * imported from; to add a file at the top of src/, put its name in the layer it belongs to.
 */

/** Entry points: the files the package's `exports` map builds. */
const ENTRIES = '^src/(index|internal)[.]ts$|^src/(dispatcher|sqlite|postgres|dashboard|sandbox|testing|catalog|web|fastify|hono|koa|nestjs)/index[.]ts$';
/** The receiver's framework adapters (Express, node:http, the Fetch API, Fastify, Hono, Koa, NestJS) and what they share. */
const ADAPTERS = '^src/receiver/(express|node|fetch|fastify|hono|hono-handler|koa|nestjs|adapter|fetch-handler)[.]ts$';

/** @type {Record<string, { path: string; pathNot?: string; mayImport: string[] }>} */
const LAYERS = {
  // The framework-free core, lowest first.
  kernel: {
    path: '^src/(errors|configuration|options-check|ids|once|contained|timers|turn-queue|migrations|logger|json-logger|log-redaction|redacting-logger|parse-argument|signature|signature-scheme|web-signature|sha256|bytes|optional-package|runtime)[.]ts$',
    mayImport: [],
  },
  // The HTTP edge: the bounded body reader, headers as frameworks give them, the node/Fetch answer
  // bridge, the router. Framework-free, and below everything that speaks HTTP.
  http: { path: '^src/http/', mayImport: ['kernel'] },
  events: { path: '^src/events/', mayImport: ['kernel'] },
  ports: { path: '^src/ports/', mayImport: ['kernel', 'events'] },
  metrics: { path: '^src/metrics/', mayImport: ['kernel', 'ports'] },
  core: { path: '^src/(receiver|dispatcher)/', pathNot: `${ENTRIES}|${ADAPTERS}`, mayImport: ['kernel', 'http', 'events', 'ports', 'metrics'] },

  // Backends implement the ports; they know nothing of the features, nor of each other.
  memory: { path: '^src/stores/memory/', mayImport: ['kernel', 'events', 'ports'] },
  sqlite: { path: '^src/stores/sqlite/', pathNot: ENTRIES, mayImport: ['kernel', 'events', 'ports'] },
  postgres: { path: '^src/stores/postgres/', pathNot: ENTRIES, mayImport: ['kernel', 'events', 'ports'] },

  // The composition the entry points own: which backend a receiver or dispatcher given no store gets.
  defaults: { path: '^src/defaults/', mayImport: ['kernel', 'events', 'ports', 'core', 'sqlite'] },
  // The receiver's framework adapters: thin shells of the HTTP edge around the core.
  adapters: { path: ADAPTERS, mayImport: ['kernel', 'http', 'events', 'ports', 'metrics', 'core', 'defaults'] },

  // The receiver where Node's modules may be absent (acct-webhook/web: Workers, edge runtimes):
  // WebCrypto and no default store; the memory backend and the Fetch adapter, nothing of SQLite.
  web: { path: '^src/web/', pathNot: ENTRIES, mayImport: ['kernel', 'http', 'events', 'ports', 'metrics', 'core', 'memory', 'adapters'] },

  // Features built on the core.
  dashboard: { path: '^src/dashboard/', pathNot: ENTRIES, mayImport: ['kernel', 'http', 'events', 'ports', 'metrics', 'core'] },
  sandbox: { path: '^src/sandbox/', pathNot: ENTRIES, mayImport: ['kernel', 'http', 'events', 'ports', 'core', 'defaults', 'sqlite'] },
  testing: { path: '^src/testing/', pathNot: ENTRIES, mayImport: ['kernel', 'events', 'ports', 'core'] },
  // The event catalog as OpenAPI, AsyncAPI and JSON Schema: the events, and the dispatcher's schedule and timeout it documents.
  catalog: { path: '^src/catalog/', pathNot: ENTRIES, mayImport: ['kernel', 'events', 'core'] },

  entries: {
    path: ENTRIES,
    mayImport: ['kernel', 'http', 'events', 'ports', 'metrics', 'core', 'memory', 'sqlite', 'postgres', 'defaults', 'adapters', 'web', 'dashboard', 'sandbox', 'testing', 'catalog'],
  },

  // The command line (bin/acct-webhook) and the scaffolder (the create-acct-webhook package).
  cliKit: { path: '^src/cli-kit/', mayImport: ['kernel'] },
  scaffold: { path: '^src/scaffold/', mayImport: ['kernel', 'events', 'cliKit'] },
  cli: {
    path: '^src/cli/',
    mayImport: ['kernel', 'http', 'events', 'ports', 'metrics', 'core', 'memory', 'sqlite', 'postgres', 'defaults', 'adapters', 'dashboard', 'sandbox', 'testing', 'catalog', 'cliKit', 'scaffold'],
  },
};

const layerRef = (name) => {
  const layer = LAYERS[name];
  if (layer === undefined) throw new Error(`.dependency-cruiser.mjs: no layer ${name}`);
  return layer.pathNot === undefined ? { path: layer.path } : { path: layer.path, pathNot: layer.pathNot };
};

const between = Object.entries(LAYERS).flatMap(([name, layer]) =>
  [name, ...layer.mayImport].map((target) => ({ from: layerRef(name), to: layerRef(target) })),
);

/** Anything outside src/: Node's modules and packages. Which packages is the `forbidden` rules' business. */
const outside = { from: {}, to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'] } };

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  allowed: [...between, outside],
  allowedSeverity: 'error',
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No module may reach itself again through its imports, type-only ones included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'drivers-in-their-backend',
      comment: 'better-sqlite3 is loaded by the SQLite backend only, pg by the PostgreSQL one.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/stores/sqlite/' },
      to: { path: '^node_modules/better-sqlite3/' },
    },
    {
      name: 'pg-in-its-backend',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/stores/postgres/' },
      to: { path: '^node_modules/(pg|pg-pool)/' },
    },
    {
      name: 'cli-packages-in-the-cli',
      comment: "The CLI's own packages (dev dependencies it bundles) never reach the library.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|cli-kit|scaffold)/' },
      to: { path: '^node_modules/(commander|@clack|@opentelemetry/(sdk|exporter))' },
    },
    {
      name: 'no-test-runner',
      comment: 'acct-webhook/testing takes the test functions as a parameter: no test runner is a dependency of the library.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^node_modules/(vitest|@vitest|jest|mocha)/' },
    },
  ],
  options: {
    // Built into the Node.js lines the package supports (22.16+, 24+), though not into the one
    // that may run this check (20): src/stores/sqlite/node-sqlite.ts imports its types.
    builtInModules: { add: ['node:sqlite', 'sqlite'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|test|bench|packages|templates)/' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
