/*
 * The architecture of src/, as a rule `npm test` checks (test/architecture.test.ts; by hand:
 * `npm run lint:layers`). docs/architecture.md explains it.
 *
 * Each layer is a folder of src/ and names the layers it may import; an import between two layers
 * that the table does not allow fails. Imports within a layer are always allowed. Type-only
 * imports count like the others (`tsPreCompilationDeps`), and no cycle is allowed, of any kind.
 * A file is placed by its folder alone: to add a layer, add a row with its folder and list it
 * where it may be imported from.
 */

/** @type {Record<string, { path: string; mayImport: string[] }>} */
const LAYERS = {
  // The framework-free core, lowest first.
  kernel: { path: '^src/kernel/', mayImport: [] },
  logging: { path: '^src/logging/', mayImport: ['kernel'] },
  signing: { path: '^src/signing/', mayImport: ['kernel'] },
  // The HTTP edge: the bounded body reader, headers as frameworks give them, the node/Fetch answer
  // bridge, the router. Framework-free, and below everything that speaks HTTP.
  http: { path: '^src/http/', mayImport: ['kernel'] },
  events: { path: '^src/events/', mayImport: ['kernel'] },
  ports: { path: '^src/ports/', mayImport: ['kernel', 'events'] },
  metrics: { path: '^src/metrics/', mayImport: ['kernel', 'ports'] },
  receiver: { path: '^src/receiver/', mayImport: ['kernel', 'logging', 'signing', 'http', 'events', 'ports', 'metrics'] },
  dispatcher: { path: '^src/dispatcher/', mayImport: ['kernel', 'logging', 'signing', 'http', 'events', 'ports', 'metrics'] },

  // Backends implement the ports; they know nothing of the features, nor of each other.
  memory: { path: '^src/stores/memory/', mayImport: ['kernel', 'events', 'ports'] },
  sqlite: { path: '^src/stores/sqlite/', mayImport: ['kernel', 'events', 'ports'] },
  postgres: { path: '^src/stores/postgres/', mayImport: ['kernel', 'events', 'ports'] },

  // The one place that chooses a runtime's backend and HMAC: the default SQLite stores and
  // node:crypto on Node.js, WebCrypto and no default store on the web platform.
  platform: { path: '^src/platform/', mayImport: ['kernel', 'signing', 'events', 'ports', 'receiver', 'dispatcher', 'sqlite'] },
  // The receiver's framework adapters, one folder each: thin shells of the HTTP edge around the
  // receiver. Each index.ts gives its adapter the platform; no adapter imports a backend.
  adapters: { path: '^src/adapters/', mayImport: ['kernel', 'logging', 'signing', 'http', 'events', 'ports', 'metrics', 'receiver', 'platform'] },

  // The typed client of the platform's /v1 API: the Fetch API alone, no backend, no Node module.
  client: { path: '^src/client/', mayImport: ['kernel', 'logging', 'events'] },

  // Features built on the cores.
  dashboard: { path: '^src/dashboard/', mayImport: ['kernel', 'logging', 'signing', 'http', 'events', 'ports', 'metrics', 'receiver', 'dispatcher'] },
  // The sandbox is an application of its own: it keeps its world in SQLite, with the Node platform's dispatcher.
  sandbox: { path: '^src/sandbox/', mayImport: ['kernel', 'logging', 'signing', 'http', 'events', 'ports', 'receiver', 'dispatcher', 'platform', 'sqlite'] },
  testing: { path: '^src/testing/', mayImport: ['kernel', 'signing', 'events', 'ports', 'receiver', 'dispatcher'] },
  // The event catalog as OpenAPI, AsyncAPI and JSON Schema: the events, the signature's headers, and the dispatcher's schedule and timeout it documents.
  catalog: { path: '^src/catalog/', mayImport: ['kernel', 'signing', 'events', 'dispatcher'] },

  // The package's entries that compose a core with its platform (., ./web, ./dispatcher, and the
  // build's internal entry): files at the top of src/ that only re-export.
  entries: {
    path: '^src/[^/]+$',
    mayImport: ['kernel', 'logging', 'signing', 'http', 'events', 'ports', 'metrics', 'receiver', 'dispatcher', 'memory', 'sqlite', 'postgres', 'platform', 'adapters', 'dashboard', 'sandbox', 'testing', 'catalog', 'client'],
  },

  // The command line (bin/acct-webhook) and the scaffolder (the create-acct-webhook package).
  cliKit: { path: '^src/cli-kit/', mayImport: ['kernel'] },
  scaffold: { path: '^src/scaffold/', mayImport: ['kernel', 'events', 'cliKit'] },
  cli: {
    path: '^src/cli/',
    mayImport: ['kernel', 'logging', 'signing', 'http', 'events', 'ports', 'metrics', 'receiver', 'dispatcher', 'memory', 'sqlite', 'postgres', 'platform', 'adapters', 'dashboard', 'sandbox', 'testing', 'catalog', 'client', 'cliKit', 'scaffold'],
  },
};

const layerRef = (name) => {
  const layer = LAYERS[name];
  if (layer === undefined) throw new Error(`.dependency-cruiser.mjs: no layer ${name}`);
  return { path: layer.path };
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
