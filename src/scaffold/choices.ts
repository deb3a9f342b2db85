/**
 * What a generated project can be made of: the values `--store`, `--adapter` and
 * `--package-manager` accept, with the words the prompts and the README use for them.
 */
export const STORES = {
  sqlite: { label: 'SQLite', hint: 'one file on disk; several processes on one machine may share it' },
  memory: { label: 'In memory', hint: 'forgets handled events on restart: development and tests only' },
  postgres: { label: 'PostgreSQL', hint: 'several machines share one database (acct-webhook/postgres, pg)' },
} as const;
export type Store = keyof typeof STORES;

export const ADAPTERS = {
  express: { label: 'Express', hint: 'app.use(webhookHandler(…)) in an Express app' },
  fastify: { label: 'Fastify', hint: 'app.register(fastifyWebhooks, …) from acct-webhook/fastify' },
  hono: { label: 'Hono', hint: "app.post(path, honoWebhooks(…)) from acct-webhook/hono, on @hono/node-server" },
  node: { label: 'node:http', hint: 'nodeHandler, no web framework' },
  fetch: { label: 'Fetch API', hint: 'fetchHandler, (Request) => Response, served by node:http' },
} as const;
export type Adapter = keyof typeof ADAPTERS;

/** How each package manager installs and runs scripts; the README and next steps quote these. */
export const PACKAGE_MANAGERS = {
  npm: { install: 'npm install', ciInstall: 'npm ci', run: 'npm run', start: 'npm start', test: 'npm test' },
  pnpm: { install: 'pnpm install', ciInstall: 'pnpm install --frozen-lockfile', run: 'pnpm', start: 'pnpm start', test: 'pnpm test' },
  yarn: { install: 'yarn install', ciInstall: 'yarn install --immutable', run: 'yarn', start: 'yarn start', test: 'yarn test' },
} as const;
export type PackageManager = keyof typeof PACKAGE_MANAGERS;

export function choiceNames<T extends object>(choices: T): (keyof T & string)[] {
  return Object.keys(choices) as (keyof T & string)[];
}
