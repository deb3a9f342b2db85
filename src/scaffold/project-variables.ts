import { ADAPTERS, PACKAGE_MANAGERS, STORES, type Adapter, type Store } from './choices.js';
import { DEFAULT_PORT, PREFERRED_SAMPLE_EVENT, RECEIVER_PATH } from './project-defaults.js';
import type { ChosenGroup } from './events.js';
import type { GeneratorPackage } from './generator-package.js';
import { handlerFilePath } from './handler-code.js';
import type { ProjectOptions } from './project-options.js';
import type { TemplateVariables } from './template.js';

/** The store's lines in `.env.example`. */
const STORE_ENVIRONMENT: Record<Store, string> = {
  sqlite: [
    '',
    '# The SQLite file that remembers handled event ids; created on first start.',
    'WEBHOOK_DB=./webhook-events.db',
  ].join('\n'),
  memory: '',
  postgres: [
    '',
    '# The PostgreSQL database that remembers handled event ids.',
    'DATABASE_URL=postgres://user:password@localhost:5432/webhooks',
  ].join('\n'),
};

/** The README's paragraph about the store. */
const STORE_README: Record<Store, string> = {
  sqlite: [
    'Handled event ids are kept for 30 days in one SQLite file, `WEBHOOK_DB` (default',
    '`./webhook-events.db`). Several processes on one machine may share it. Keep it on a',
    'persistent volume: a store that forgets lets a repeated delivery run its handlers again.',
    '',
    '`better-sqlite3` is in `package.json` although `acct-webhook` brings it as an optional',
    'dependency: if its native build fails, an optional package is left out without a word and the',
    'store fails when the server starts; as a dependency of this project the install fails instead,',
    'where you see it, and `--omit=optional` cannot drop it.',
  ].join('\n'),
  memory: [
    'Handled event ids are kept in memory: a restart forgets them, and a second process does not',
    'see them. That is fine while you develop; before production switch `src/store.ts` to',
    "`sqliteStore('./webhook-events.db')` (one machine) or `postgresStore(url)` from",
    '`acct-webhook/postgres` (several machines).',
  ].join('\n'),
  postgres: [
    'Handled event ids are kept for 30 days in PostgreSQL (`DATABASE_URL`), so several machines',
    'behind a load balancer share what was handled. The tests use an in-memory store instead and',
    'need no database.',
  ].join('\n'),
};

/** Files only some adapters have, for the README's table. */
const ADAPTER_FILES: Record<Adapter, string> = {
  express: '',
  fastify: '',
  hono: '',
  node: '',
  fetch: '| `src/fetch-bridge.ts` | serves the Fetch-API handler from node:http, without another dependency |',
};

/** The values of the placeholders every template may use. */
export function projectVariables(options: ProjectOptions, groups: readonly ChosenGroup[], generator: GeneratorPackage): TemplateVariables {
  const packageManager = PACKAGE_MANAGERS[options.packageManager];
  return {
    projectName: options.projectName,
    generatorVersion: generator.version,
    nodeEngine: generator.nodeEngine,
    adapterLabel: ADAPTERS[options.adapter].label,
    adapterFiles: ADAPTER_FILES[options.adapter],
    storeLabel: STORES[options.store].label,
    storeEnvironment: STORE_ENVIRONMENT[options.store],
    storeReadme: STORE_README[options.store],
    installCommand: packageManager.install,
    ciInstallCommand: packageManager.ciInstall,
    packageManager: options.packageManager,
    // pnpm and yarn come with Node.js through corepack; setup-node's cache needs them first.
    ciSetup: options.packageManager === 'npm' ? '' : '      - run: corepack enable',
    runCommand: packageManager.run,
    startCommand: packageManager.start,
    testCommand: packageManager.test,
    port: String(DEFAULT_PORT),
    webhookPath: RECEIVER_PATH,
    sampleEvent: options.events.includes(PREFERRED_SAMPLE_EVENT) ? PREFERRED_SAMPLE_EVENT : options.events[0]!,
    eventList: groups.map((group) => `- **${group.title}**: ${group.types.map((type) => `\`${type}\``).join(', ')}`).join('\n'),
    handlerFiles: groups.map((group) => `| \`${handlerFilePath(group)}\` | ${group.title}: what to do for each of its events |`).join('\n'),
  };
}
