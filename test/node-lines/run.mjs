// npm run test:node -- <line> [<line> …] [--allow-failure <line>] [--project <name> …]
//
// The test matrix over Node.js lines. For each line: its newest release from the npm registry's
// `node` package, better-sqlite3 built for it from the headers that package carries, a copy of
// this repository with its own node_modules (test/node-lines/prepare.mjs), and there the unit,
// integration and postgres projects (or the --project ones) run on that Node.js. Then one table:
// tests passed, failed and skipped per line and project, and every failure by name.
//
// The SQLite stores' tests on node:sqlite (test/**/*.node-sqlite*.test.ts) are in the projects
// only where Node.js has it (vitest.config.ts): from line 22 on, the matrix checks that they ran
// and passed, none skipped; before it, that none ran.
//
// Exit code 1 when a line fails that is not given with --allow-failure (those are reported as
// allowed to fail, with what broke).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { betterSqlite3For, checkoutCache, installNode, prepareTree } from './prepare.mjs';

const DEFAULT_PROJECTS = ['unit', 'integration', 'postgres'];
/** The first line whose newest release has a node:sqlite the stores can use (22.16+). */
const FIRST_LINE_WITH_NODE_SQLITE = 22;
const NODE_SQLITE_FILE = /\.node-sqlite(\.integration)?\.test\.ts$/;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'allow-failure': { type: 'string', multiple: true, default: [] }, project: { type: 'string', multiple: true } },
});
const allowedToFail = new Set(values['allow-failure']);
const lines = [...positionals, ...allowedToFail.values()].filter((line, i, all) => all.indexOf(line) === i);
if (lines.length === 0 || lines.some((line) => !/^\d+$/.test(line))) {
  process.stderr.write('usage: npm run test:node -- <line> [<line> …] [--allow-failure <line>] [--project unit|integration|postgres …]\n');
  process.exit(2);
}
const projects = values.project ?? DEFAULT_PROJECTS;

const log = (line) => process.stderr.write(`node-lines: ${line}\n`);

/** The project a test file belongs to, as vitest.config.ts decides it. */
function projectOf(file) {
  if (file.startsWith('test/stores/postgres/')) return 'postgres';
  if (file.endsWith('.integration.test.ts')) return 'integration';
  return 'unit';
}

function runLine(line) {
  const started = performance.now();
  const node = installNode(line);
  const tree = prepareTree(node, betterSqlite3For(node));
  const report = join(checkoutCache, `report-${line}.json`);
  rmSync(report, { force: true });
  log(`Node.js ${node.version}: vitest run ${projects.map((project) => `--project ${project}`).join(' ')}`);
  const vitest = spawnSync(
    node.binary,
    ['node_modules/vitest/vitest.mjs', 'run', ...projects.flatMap((project) => ['--project', project]), '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    // The line's node first on PATH: the scripts tests start by name (npx tsup in the global setup) run on it too.
    { cwd: tree, stdio: 'inherit', env: { ...process.env, PATH: `${join(node.binary, '..')}:${process.env.PATH}` } },
  );
  const result = { line, version: node.version, seconds: (performance.now() - started) / 1000, exitCode: vitest.status, projects: {}, failures: [], problems: [] };
  let json;
  try {
    json = JSON.parse(readFileSync(report, 'utf8'));
  } catch {
    result.problems.push(`vitest wrote no report (exit code ${vitest.status}, signal ${vitest.signal ?? 'none'})`);
    return result;
  }
  const nodeSqlite = { files: 0, passed: 0, other: 0 };
  for (const file of json.testResults) {
    const name = relative(tree, file.name);
    const counts = (result.projects[projectOf(name)] ??= { passed: 0, failed: 0, skipped: 0 });
    if (file.status === 'failed' && file.assertionResults.length === 0) result.failures.push(`${name}: ${file.message.split('\n')[0]}`);
    for (const test of file.assertionResults) {
      const outcome = test.status === 'passed' ? 'passed' : test.status === 'failed' ? 'failed' : 'skipped';
      counts[outcome]++;
      if (outcome === 'failed') result.failures.push(`${name} > ${test.fullName}: ${(test.failureMessages[0] ?? '').split('\n')[0]}`);
      if (NODE_SQLITE_FILE.test(name)) nodeSqlite[outcome === 'passed' ? 'passed' : 'other']++;
    }
    if (NODE_SQLITE_FILE.test(name)) nodeSqlite.files++;
  }
  result.nodeSqlite = nodeSqlite;
  if (Number(line) >= FIRST_LINE_WITH_NODE_SQLITE) {
    if (nodeSqlite.files === 0 || nodeSqlite.passed === 0) result.problems.push('the node:sqlite tests did not run');
    else if (nodeSqlite.other > 0) result.problems.push(`${nodeSqlite.other} node:sqlite tests did not pass`);
  } else if (nodeSqlite.files > 0) {
    result.problems.push('node:sqlite tests ran on a line without node:sqlite');
  }
  const notRun = Object.values(result.projects).reduce((sum, counts) => sum + counts.skipped, 0);
  // No test is skipped in this suite: one that did not run was cut short (a crashed worker) or left out.
  if (notRun > 0) result.problems.push(`${notRun} tests did not run (skipped, or their worker ended first)`);
  if (vitest.status !== 0 && result.failures.length === 0) result.problems.push(`vitest exited with ${vitest.status}`);
  return result;
}

const results = [];
for (const line of lines) {
  try {
    results.push(runLine(line));
  } catch (error) {
    results.push({ line, version: `node@${line}`, seconds: 0, projects: {}, failures: [], problems: [`could not run: ${error.message.split('\n')[0]}`] });
  }
}

const failed = (result) => result.failures.length > 0 || result.problems.length > 0;
const cell = (counts) => (counts ? `${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}` : '—');
process.stdout.write('\nNode.js matrix\n');
process.stdout.write(`| line | Node.js | ${projects.join(' | ')} | node:sqlite tests | time | result |\n|${' --- |'.repeat(projects.length + 5)}\n`);
for (const result of results) {
  const sqlite = result.nodeSqlite?.files ? `${result.nodeSqlite.passed} passed in ${result.nodeSqlite.files} files` : 'not included';
  const verdict = !failed(result) ? 'pass' : allowedToFail.has(result.line) ? 'FAIL (allowed)' : 'FAIL';
  process.stdout.write(`| ${result.line} | ${result.version} | ${projects.map((project) => cell(result.projects[project])).join(' | ')} | ${sqlite} | ${result.seconds.toFixed(0)} s | ${verdict} |\n`);
}
for (const result of results.filter(failed)) {
  process.stdout.write(`\nNode.js ${result.version}${allowedToFail.has(result.line) ? ' (allowed to fail)' : ''}: what broke\n`);
  for (const line of [...result.problems, ...result.failures]) process.stdout.write(`  - ${line}\n`);
}
process.exitCode = results.some((result) => failed(result) && !allowedToFail.has(result.line)) ? 1 : 0;
