import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliProcess } from '../cli/process.js';
import { temporaryDirectory } from '../cli/helpers.js';
import { apiClient } from './helpers.js';

/* The built `acct-webhook sandbox` as a user starts it: a process of its own, stopped by a signal. */

describe('acct-webhook sandbox in a process', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('serves /v1 with the printed key, keeps --db, and stops on %s: exit 0', async (signal) => {
    const directory = temporaryDirectory('acct-sandbox-process');
    const database = join(directory.path, 'sandbox.db');
    const sandbox = new CliProcess(['sandbox', '--port', '0', '--seed', '3', '--db', database]);
    try {
      const [, url] = await sandbox.waitForOutput(/Sandbox on (http:\/\/127\.0\.0\.1:\d+\/v1)/);
      const [, apiKey] = await sandbox.waitForOutput(/Test key: +(sk_test_\w+)/);
      const call = apiClient({ url: url!, apiKey: apiKey! });
      const customer = await call('POST', '/customers', { name: 'Huber' });
      expect(customer.status).toBe(201);
      const stopped = await sandbox.stop(signal);
      expect(stopped).toMatchObject({ exitCode: 0, signal: null });
      expect(stopped.stderr).toContain('Stopped.');
      expect(existsSync(database)).toBe(true);
    } finally {
      sandbox.kill();
      directory.remove();
    }
  });
});
