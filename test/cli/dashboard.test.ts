import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/dispatcher/index.js';
import { sqliteStore } from '../../src/index.js';
import { tempDir } from '../dispatcher/fixtures.js';
import { CommandRun, expectOneLineError, runCommand } from './helpers.js';

const running: CommandRun[] = [];
afterEach(async () => {
  for (const run of running.splice(0)) await run.stop();
});

/** A dispatcher database with one registration, and a receiver event store, as files. */
async function databases(): Promise<{ db: string; eventsDb: string; webhookUrl: string }> {
  const dir = tempDir();
  const db = join(dir, 'dispatch.db');
  const dispatcher = new Dispatcher({ database: db, logger: false, allowInsecureUrls: true });
  const webhookUrl = 'http://127.0.0.1:9/hooks';
  await dispatcher.webhooks.create({ url: webhookUrl, events: ['invoice.*'] });
  await dispatcher.close();
  const eventsDb = join(dir, 'events.db');
  const store = sqliteStore(eventsDb);
  await store.claim('evt_cli_dashboard_1', { now: Date.now(), leaseMs: 1000, type: 'invoice.paid' });
  await store.close();
  return { db, eventsDb, webhookUrl };
}

async function start(args: readonly string[]): Promise<{ run: CommandRun; url: URL }> {
  const run = new CommandRun(['dashboard', '--port', '0', ...args]);
  running.push(run);
  const [printed] = await run.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/);
  return { run, url: new URL(printed) };
}

describe('acct-webhook dashboard', () => {
  it('prints a URL whose token works once and becomes a session cookie; everything else gets 401', async () => {
    const { db, eventsDb, webhookUrl } = await databases();
    const { url } = await start(['--db', db, '--events-db', eventsDb]);
    const origin = url.origin;
    for (const path of ['/', '/webhooks', '/?token=wrong', '/assets/dashboard.css']) {
      const refused = await fetch(`${origin}${path}`, { redirect: 'manual' });
      expect(refused.status, path).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
    const admitted = await fetch(url, { redirect: 'manual' });
    expect(admitted.status).toBe(303);
    expect(admitted.headers.get('location')).toBe('/');
    const cookie = admitted.headers.get('set-cookie')!.split(';')[0]!;
    expect(admitted.headers.get('set-cookie')).toContain('HttpOnly');
    const registrations = await fetch(`${origin}/webhooks`, { headers: { cookie } });
    expect(registrations.status).toBe(200);
    expect(await registrations.text()).toContain(webhookUrl);
    expect(await (await fetch(`${origin}/receiver/events`, { headers: { cookie } })).text()).toContain('evt_cli_dashboard_1');
    expect((await fetch(`${origin}/receiver/inbox`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
  });

  it('stops on Ctrl-C', async () => {
    const { db } = await databases();
    const { run } = await start(['--db', db]);
    expect(await run.stop('SIGINT')).toBe(0);
    running.length = 0;
    expect(run.stderr).toBe('Stopped.\n');
  });

  it.each([
    ['neither database', 'INVALID_OPTION', []],
    ['a --db that does not exist', 'UNREADABLE_FILE', ['--db', '/nonexistent/dispatch.db']],
    ['an --events-db that does not exist', 'UNREADABLE_FILE', ['--events-db', '/nonexistent/events.db']],
  ])('%s → one line, %s', async (_name, code, args) => {
    expectOneLineError(await runCommand(['dashboard', '--port', '0', ...args]), code, 2);
  });

  it('an --events-db that is not an event store → MALFORMED_INPUT, the file untouched', async () => {
    const file = join(tempDir(), 'notes.db');
    writeFileSync(file, 'just text');
    expectOneLineError(await runCommand(['dashboard', '--port', '0', '--events-db', file]), 'MALFORMED_INPUT', 2);
    expect(readFileSync(file, 'utf8')).toBe('just text');
  });
});
