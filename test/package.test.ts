import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const tsc = resolve(import.meta.dirname, '..', 'node_modules', 'typescript', 'bin', 'tsc');

// The package as a user gets it: `npm pack`, installed into a fresh project, loaded both ways.
describe('the packed package', () => {
  let project: string;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'acct-webhook-consumer-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', inject('tarball'), '@types/node@20'], {
      cwd: project,
    });
  }, 180_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  const check = `
    const event = testing.createTestEvent('invoice.paid');
    const body = JSON.stringify(event);
    const signed = main.signPayload({ payload: body, secret: 'whsec_pack' });
    main.verifySignature({ payload: body, signature: signed.signature, timestamp: signed.timestamp, secret: 'whsec_pack' });
    console.log(JSON.stringify({ type: main.parseEvent(body).type, types: main.EVENT_TYPES.length }));
  `;

  it('loads with require() (CommonJS)', async () => {
    writeFileSync(
      join(project, 'check.cjs'),
      `const main = require('acct-webhook'); const testing = require('acct-webhook/testing');\n${check}`,
    );
    const { stdout } = await run('node', ['check.cjs'], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ type: 'invoice.paid', types: 18 });
  });

  it('loads with import (ES modules)', async () => {
    writeFileSync(
      join(project, 'check.mjs'),
      `import * as main from 'acct-webhook'; import * as testing from 'acct-webhook/testing';\n${check}`,
    );
    const { stdout } = await run('node', ['check.mjs'], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ type: 'invoice.paid', types: 18 });
  });

  it('ships declarations that type-check for both module systems', async () => {
    const usage = `
      const event = createTestEvent('invoice.paid');
      const amount: number = event.data.object.amount;
      const parsed = parseEvent(JSON.stringify(event));
      if (parsed.type === 'invoice.paid') { const paidAt: string = parsed.data.object.paid_at; void paidAt; }
      void amount;
    `;
    writeFileSync(
      join(project, 'esm.mts'),
      `import { parseEvent } from 'acct-webhook';\nimport { createTestEvent } from 'acct-webhook/testing';\n${usage}`,
    );
    writeFileSync(
      join(project, 'cjs.cts'),
      `import { parseEvent } from 'acct-webhook';\nimport { createTestEvent } from 'acct-webhook/testing';\n${usage}`,
    );
    const args = ['--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--types', 'node'];
    await expect(run('node', [tsc, ...args, 'esm.mts', 'cjs.cts'], { cwd: project })).resolves.toBeDefined();
  });
});
