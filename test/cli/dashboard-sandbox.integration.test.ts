import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../dispatcher/fixtures.js';
import { sandboxWithReceiver } from '../sandbox/helpers.js';
import { CliProcess } from './process.js';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';

/*
 * `acct-webhook dashboard --db sandbox.db` over a seeded sandbox's file, whose clock stands in
 * January 2026 while the wall clock runs on: the pages count by the sandbox's clock, so the
 * Sending chart holds what the cards count, and registrations are shown by the ids and URLs the
 * sandbox's API returned, not by the Dispatcher's ids and the fault proxy's URLs.
 */

const running: CliProcess[] = [];
afterEach(async () => {
  for (const process of running.splice(0)) {
    process.kill();
    await process.result();
  }
});

/** The dashboard process on `db`, signed in: a fetch with its session cookie. */
async function dashboardOn(db: string): Promise<{ get: (path: string) => Promise<string>; process: CliProcess }> {
  const process = new CliProcess(['dashboard', '--db', db, '--port', '0'], { timeoutMs: OUTCOME_TIMEOUT_MS });
  running.push(process);
  const [printed] = await process.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/);
  const url = new URL(printed);
  const admitted = await fetch(url, { redirect: 'manual' });
  const cookie = admitted.headers.get('set-cookie')!.split(';')[0]!;
  return {
    process,
    get: async (path) => {
      const answer = await fetch(`${url.origin}${path}`, { headers: { cookie } });
      expect(answer.status, path).toBe(200);
      return answer.text();
    },
  };
}

const count = (page: string, card: string): number => Number(new RegExp(`<span class="count">(\\d+)</span>${card}</a>`).exec(page)?.[1]);

describe('acct-webhook dashboard over a sandbox database', () => {
  it("counts by the sandbox's clock (chart and cards agree) and names registrations as the API does", async () => {
    const database = join(tempDir(), 'sandbox.db');
    const { sandbox, receiver, call, webhookId, stop } = await sandboxWithReceiver({ database });
    for (const name of ['Huber', 'Gruber', 'Bauer']) expect((await call('POST', '/customers', { name })).status).toBe(201);
    await sandbox.settle();
    const sandboxNow = sandbox.now();
    await stop();
    expect(Math.abs(Date.now() - sandboxNow)).toBeGreaterThan(86_400_000);

    const { get, process } = await dashboardOn(database);
    expect(process.stderr).toContain("a sandbox's database");
    const overview = await get('/');
    const delivered = count(overview, 'delivered');
    expect(delivered).toBe(3);
    const total = Number(/id="chart-deliveries"[\s\S]*?data-total="(\d+)"/.exec(overview)?.[1]);
    expect(total).toBe(delivered + count(overview, 'retrying') + count(overview, 'finally failed'));

    const registrations = await get('/webhooks');
    expect(registrations).toContain(`>${receiver.url}</a>`);
    expect(registrations).toContain(`<span class="muted mono">${webhookId}</span>`);
    expect(registrations).toMatch(/\(dispatcher: <span class="mono">wh_/);
  });
});
