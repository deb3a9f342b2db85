import fc from 'fast-check';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/cli/dashboard/token-gate.js';
import { hasDotSegment } from '../../src/dashboard/request-target.js';
import { Dispatcher } from '../../src/dispatcher.js';
import { cookieHeader, ISSUE_TOKEN, pathBelow, queryValue } from '../dashboard/hostile-values.js';
import { tempDir } from '../dispatcher/fixtures.js';
import { rawRequest } from '../helpers/raw-http.js';
import { CliProcess } from './process.js';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';

/*
 * `acct-webhook dashboard` as the process a user starts (the built bin): the process that one
 * request used to end (a RangeError from comparing a 43-character, 44-byte token). Whatever it
 * is sent, it answers, keeps running, and the printed URL still signs in.
 */

const running: CliProcess[] = [];
afterEach(async () => {
  for (const process of running.splice(0)) {
    process.kill();
    await process.result();
  }
});

async function dashboardProcess(): Promise<{ process: CliProcess; url: URL }> {
  const db = join(tempDir(), 'dispatch.db');
  const dispatcher = new Dispatcher({ database: db, logger: false });
  await dispatcher.close();
  const process = new CliProcess(['dashboard', '--db', db, '--port', '0'], { timeoutMs: OUTCOME_TIMEOUT_MS });
  running.push(process);
  const [printed] = await process.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/);
  return { process, url: new URL(printed) };
}

/** The process still runs, still refuses a stranger, and the printed URL signs a browser in. */
async function expectStillServing(process: CliProcess, url: URL): Promise<void> {
  expect(process.child.exitCode).toBeNull();
  expect((await fetch(`${url.origin}/`)).status).toBe(401);
  const admitted = await fetch(url, { redirect: 'manual' });
  expect(admitted.status).toBe(303);
  const cookie = admitted.headers.get('set-cookie')!.split(';')[0]!;
  expect((await fetch(`${url.origin}/webhooks`, { headers: { cookie } })).status).toBe(200);
  expect(process.stderr).toBe('');
}

describe('acct-webhook dashboard, the process', () => {
  it("the issue's request (GET /?token=42 × A + %C3%A9), and the same value as the session cookie → 401; the process runs on", async () => {
    const { process, url } = await dashboardProcess();
    expect((await rawRequest(url.origin, { target: `/?token=${ISSUE_TOKEN}` })).status).toBe(401);
    const cookies = [Buffer.from(`${SESSION_COOKIE}=${ISSUE_TOKEN}`), Buffer.concat([Buffer.from(`${SESSION_COOKIE}=${'A'.repeat(41)}`), Buffer.from('é')])];
    for (const cookie of cookies) expect((await rawRequest(url.origin, { target: '/', headers: [['cookie', cookie]] })).status).toBe(401);
    await expectStillServing(process, url);
  });

  it('250 hostile tokens, cookies and paths of every length in bytes and characters → each answered 400/401/431; the process runs on', async () => {
    const { process, url } = await dashboardProcess();
    const hostile = fc.record({
      method: fc.constantFrom('GET', 'HEAD', 'POST'),
      path: pathBelow(''),
      token: fc.option(queryValue, { freq: 4 }),
      cookie: fc.option(cookieHeader(SESSION_COOKIE)),
    });
    await fc.assert(
      fc.asyncProperty(hostile, async ({ method, path, token, cookie }) => {
        const target = token === null ? path : `${path}?token=${token}`;
        const answer = await rawRequest(url.origin, { method, target, headers: cookie === null ? [] : [['cookie', cookie]] });
        expect([400, 401, 431], target).toContain(answer.status);
        if (hasDotSegment(path) && answer.status !== 431) expect(answer.status, target).toBe(400);
      }),
      { numRuns: 250 },
    );
    await expectStillServing(process, url);
  });
});
