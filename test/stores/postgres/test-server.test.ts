import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { choosePostgres, POSTGRES_URL_VARIABLE, probePostgres } from '../../helpers/postgres-server.js';
import { POSTGRES_URL } from '../../helpers/postgres.js';
import { waitFor } from '../../scaffold/helpers.js';
import { OUTCOME_TIMEOUT_MS } from '../../helpers/patience.js';

const EMBEDDED_SCRIPT = join(import.meta.dirname, '../..', 'helpers', 'embedded-postgres.mjs');

// The choice of the tests' PostgreSQL server (test/helpers/postgres-server.ts): these suites
// never skip, so a contributor without a server gets one, and a configured one that is down fails.

/** A port of 127.0.0.1 on which nothing listens (it just did, and was closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function serverVersion(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string }>(`SELECT current_setting('server_version_num') AS version, current_database() AS database`);
    return Number(rows[0]!.version);
  } finally {
    await client.end();
  }
}

describe('the PostgreSQL server of the tests', () => {
  it('this run has one that answers', async () => {
    expect(await probePostgres(POSTGRES_URL)).toBeUndefined();
  });

  it(`${POSTGRES_URL_VARIABLE} set to a server that is down: the run fails, naming it without its password`, async () => {
    const url = `postgres://app:hunter2@127.0.0.1:${await closedPort()}/test`;
    const choice = choosePostgres({ env: { [POSTGRES_URL_VARIABLE]: url } });
    await expect(choice).rejects.toThrow(`${POSTGRES_URL_VARIABLE} is set, but PostgreSQL at postgres://app:***@127.0.0.1:`);
    await expect(choice).rejects.not.toThrow('hunter2');
  });

  it(`${POSTGRES_URL_VARIABLE} set to a server that answers: that one, not the machine's`, async () => {
    const server = await choosePostgres({ env: { [POSTGRES_URL_VARIABLE]: POSTGRES_URL }, machineUrl: `postgres://postgres@127.0.0.1:${await closedPort()}/test` });
    expect(server).toMatchObject({ url: POSTGRES_URL, source: 'environment' });
  });

  it("nothing set and nothing on the machine's port: a server of embedded-postgres, on a free port of 127.0.0.1, gone with its data after stop()", async () => {
    const machineUrl = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;
    const server = await choosePostgres({ env: {}, machineUrl });
    let stopped = false;
    try {
      expect(server.source).toBe('embedded');
      const url = new URL(server.url);
      expect(url.hostname).toBe('127.0.0.1');
      expect(url.pathname).toBe('/test');
      expect(server.description).not.toContain(url.password);
      expect(await serverVersion(server.url)).toBeGreaterThanOrEqual(150_000);
      await server.stop();
      stopped = true;
      expect(await probePostgres(server.url)).toMatchObject({ code: 'ECONNREFUSED' });
      expect(existsSync(dirname(server.dataDirectory!))).toBe(false);
    } finally {
      if (!stopped) await server.stop();
    }
  });

  it('the embedded server stops, and its directory goes, when the test run that started it is killed (SIGKILL)', async () => {
    // A stand-in for the vitest process: starts the server as the global setup does, then hangs.
    const run = spawn(process.execPath, ['--input-type=module', '-e', `
      import { spawn } from 'node:child_process';
      const server = spawn(process.execPath, [${JSON.stringify(EMBEDDED_SCRIPT)}], { stdio: ['pipe', 'pipe', 'inherit'] });
      server.stdout.pipe(process.stdout);
      setInterval(() => undefined, 60_000);
    `], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(createInterface({ input: run.stdout }), 'line')) as [string];
      const { url, dataDirectory } = JSON.parse(line) as { url: string; dataDirectory: string };
      expect(await probePostgres(url)).toBeUndefined();
      run.kill('SIGKILL');
      await waitFor(() => !existsSync(dirname(dataDirectory)), 'the server to stop and its directory to go', OUTCOME_TIMEOUT_MS);
      expect(await probePostgres(url)).toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      run.kill('SIGKILL');
    }
  });
});
