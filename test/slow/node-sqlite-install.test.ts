import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { installNode, type InstalledNode } from '../node-lines/prepare.mjs';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';

const run = promisify(execFile);
const SECRET = 'whsec_freshProjectOnNode24000000000000';

// A user on Node.js 24 whose install has no better-sqlite3 (npm install --omit=optional here; a
// failed native build leaves it out the same way): the one-line receiver's default store and the
// demo run on node:sqlite, which Node.js 24 has built in. Node.js 24 is the npm registry's `node`
// package, as the Node.js matrix takes it (test/node-lines/prepare.mjs).
describe('a fresh project on Node.js 24 without better-sqlite3', () => {
  let node: InstalledNode;
  let project: string;
  /** Runs `command` in the project with Node.js 24 first on PATH (npm and npx run on it too). */
  const onNode24 = (command: string, args: string[], timeout = OUTCOME_TIMEOUT_MS) =>
    run(command, args, { cwd: project, timeout, env: { ...process.env, PATH: `${dirname(node.binary)}:${process.env.PATH}` } });

  beforeAll(async () => {
    node = installNode('24');
    project = mkdtempSync(join(tmpdir(), 'acct-webhook-node24-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh-node24', private: true, type: 'module' }));
    await onNode24('npm', ['install', '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline', inject('tarball'), 'express@5']);
  });

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('installs on the npm registry’s Node.js 24, without better-sqlite3', async () => {
    expect((await onNode24('node', ['--version'])).stdout.trim()).toMatch(/^v24\./);
    expect(existsSync(join(project, 'node_modules', 'acct-webhook'))).toBe(true);
    expect(existsSync(join(project, 'node_modules', 'better-sqlite3'))).toBe(false);
  });

  it('webhookHandler(secret) keeps handled ids in ./webhook-events.db on node:sqlite: a redelivery is a duplicate', async () => {
    writeFileSync(
      join(project, 'receiver.mjs'),
      `
      import express from 'express';
      import { DatabaseSync } from 'node:sqlite';
      import { webhookHandler } from 'acct-webhook';
      import { createTestEvent, signedRequest } from 'acct-webhook/testing';
      const app = express();
      app.use(webhookHandler(${JSON.stringify(SECRET)}));
      const server = app.listen(0, '127.0.0.1', async () => {
        const { body, headers } = signedRequest(createTestEvent('invoice.paid'), ${JSON.stringify(SECRET)});
        const answers = [];
        for (let i = 0; i < 2; i++) {
          const response = await fetch('http://127.0.0.1:' + server.address().port + '/webhooks', { method: 'POST', body, headers });
          answers.push({ status: response.status, duplicate: (await response.json()).duplicate === true });
        }
        server.close();
        const db = new DatabaseSync('webhook-events.db', { readOnly: true });
        const handled = db.prepare("SELECT event_id, state FROM acct_webhook_events").all().map((row) => ({ ...row }));
        db.close();
        console.log(JSON.stringify({ answers, handled, id: JSON.parse(body).id }));
      });
      `,
    );
    const { stdout, stderr } = await onNode24('node', ['receiver.mjs']);
    const result = JSON.parse(stdout) as { answers: unknown[]; handled: unknown[]; id: string };
    expect(result.answers).toEqual([
      { status: 200, duplicate: false },
      { status: 200, duplicate: true },
    ]);
    expect(result.handled).toEqual([{ event_id: result.id, state: 'completed' }]);
    // The default logger writes its lines to stderr: one per delivery, and nothing else (no warning).
    expect(stderr.trim().split('\n').map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['webhook delivery', 'webhook delivery']);
  });

  it('acct-webhook demo runs: every event delivered, exit 0, nothing on stderr', async () => {
    const { stdout, stderr } = await onNode24('npx', ['acct-webhook', 'demo']);
    expect(stdout).toContain(`Summary: ${EVENT_TYPES.length} of ${EVENT_TYPES.length} events delivered`);
    expect(stderr).toBe('');
  });
});
