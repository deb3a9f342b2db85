import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES_URL } from '../helpers/postgres.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');

interface Report {
  machine: { cores: number; node: string };
  results: { group: string; name: string; median: number; samples: number[] }[];
  ratios: { name: string; median: number; target: string; met: boolean }[];
}

// The benchmark itself (npm run bench) is not part of the suite — its figures need a quiet
// machine; this smoke run with tiny durations keeps every configuration of it working.
describe('npm run bench (smoke run)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-bench-smoke-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('measures every configuration and writes the report with the machine and a line per target', async () => {
    const out = join(dir, 'results.json');
    const { stdout } = await run(process.execPath, [join(root, 'bench', 'run.mjs'), '--smoke', '--out', out], {
      cwd: root,
      // The PostgreSQL receiver's server (bench/lib/events.mjs): the one the run chose.
      env: { ...process.env, ACCT_WEBHOOK_PG_URL: POSTGRES_URL },
    });
    const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
    expect(report.machine).toMatchObject({ cores: expect.any(Number), node: process.version });
    expect(new Set(report.results.map((result) => result.group))).toEqual(new Set(['http', 'verifier', 'parser', 'store', 'dispatcher', 'inbox', 'dashboard', 'cli', 'cold-start']));
    for (const result of report.results) expect(result.median, result.name).toBeGreaterThan(0);
    expect(report.ratios.map((ratio) => ratio.name)).toEqual(
      expect.arrayContaining([
        'express: webhookHandler / bare Express',
        'express: webhookHandler / @octokit/webhooks',
        'fastify: fastifyWebhooks / bare Fastify',
        'hono: honoWebhooks / bare Hono (@hono/node-server)',
        'node:http: nodeHandler / bare node:http',
        'node:http: nodeHandler, postgresStore / sqliteStore',
        'express: webhookHandler inbox mode / @octokit/webhooks',
        'node:http: nodeHandler inbox mode / bare node:http',
        'verifier 1 KB: verifySignature / inline HMAC',
        'verifier Standard Webhooks v1 1 KB: verifyStandardWebhook / inline node:crypto',
        'verifier Standard Webhooks v1 100 KB: verifyStandardWebhook / inline node:crypto',
        'verifier Standard Webhooks v1a (ed25519) 1 KB: verifyStandardWebhook / inline node:crypto',
        'parser: parseEvent / JSON.parse + zod safeParse',
        'dispatcher: deliveries per second',
        'dispatcher: healthy deliveries per second beside 3 hanging registrations / alone',
        'dashboard: deliveries page, no filter, page 1, p95',
        'dashboard: deliveries page, last HTTP status 5xx, p95',
        'cli: --help wall time / node -e 0',
        'cold start: import + fetchHandler + first verified request',
      ]),
    );
    expect(stdout).toContain('| check | median | min | max | target | met |');
  });
});
