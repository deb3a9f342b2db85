import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { stopChild } from '../helpers/processes.js';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';

const VERDACCIO = resolve(import.meta.dirname, '..', '..', 'node_modules', 'verdaccio', 'bin', 'verdaccio');
/** How long verdaccio may take to answer its health check after it was started. */
const START_TIMEOUT_MS = OUTCOME_TIMEOUT_MS;
const POLL_INTERVAL_MS = 100;

/** One version of a package as a registry takes it: its package.json and its tarball. */
export interface PackageVersion {
  name: string;
  version: string;
  /** The package.json inside the tarball. */
  manifest: Record<string, unknown>;
  tarball: Buffer;
  /** `sha512-…` and the hex SHA-1 of the tarball, as npm records them. */
  integrity: string;
  shasum: string;
}

/**
 * verdaccio's configuration: storage in `directory`, **no uplinks** (a package that was not
 * published to it does not exist), anyone may read, accounts made by the test may publish.
 * Tokens are JWTs: verdaccio's legacy tokens check the password with bcrypt on every request,
 * 250 ms each, which made an install of 180 packages take 45 s.
 */
function configuration(directory: string): string {
  return [
    `storage: ${JSON.stringify(join(directory, 'storage'))}`,
    'auth:',
    '  htpasswd:',
    `    file: ${JSON.stringify(join(directory, 'htpasswd'))}`,
    '    max_users: 10',
    'uplinks: {}',
    'packages:',
    "  '@*/*': { access: $all, publish: $authenticated }",
    "  '**': { access: $all, publish: $authenticated }",
    'max_body_size: 100mb',
    'web: { enable: false }',
    'security: { api: { jwt: { sign: { expiresIn: 1h } } } }',
    'log: { type: stdout, format: pretty, level: warn }',
    '',
  ].join('\n');
}

/** A free TCP port on 127.0.0.1, as the system hands one out. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolvePromise);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise((resolvePromise) => server.close(resolvePromise));
  return port;
}

/** A private npm registry (verdaccio) on 127.0.0.1, started as a child process for one test file. */
export class LocalRegistry {
  private output = '';

  private constructor(
    /** `http://127.0.0.1:<port>/` */
    readonly url: string,
    private readonly child: ChildProcess,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  /** Starts verdaccio with its configuration and storage in `directory`; resolves once it answers. */
  static async start(directory: string): Promise<LocalRegistry> {
    const config = join(directory, 'config.yaml');
    writeFileSync(config, configuration(directory));
    const port = await freePort();
    const child = spawn(process.execPath, [VERDACCIO, '--config', config, '--listen', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    const registry = new LocalRegistry(`http://127.0.0.1:${port}/`, child);
    await registry.waitUntilReady();
    return registry;
  }

  /** What verdaccio printed: its warnings and errors. */
  get log(): string {
    return this.output;
  }

  /** `//127.0.0.1:<port>/`: how an .npmrc names this registry for its credentials. */
  get credentialsKey(): string {
    return this.url.replace(/^https?:/, '');
  }

  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`verdaccio exited with ${this.child.exitCode}: ${this.output}`);
      if (await this.answers()) return;
      if (Date.now() > deadline) throw new Error(`verdaccio did not answer within ${START_TIMEOUT_MS} ms: ${this.output}`);
      await delay(POLL_INTERVAL_MS);
    }
  }

  private async answers(): Promise<boolean> {
    try {
      return (await fetch(new URL('-/ping', this.url))).ok;
    } catch {
      return false;
    }
  }

  /** Creates an account, as `npm adduser` does, and returns its token. */
  async addUser(name: string): Promise<string> {
    const response = await fetch(new URL(`-/user/org.couchdb.user:${encodeURIComponent(name)}`, this.url), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, password: `${name}-password-for-this-test` }),
    });
    const body = (await response.json()) as { token?: string };
    if (!response.ok || body.token === undefined) throw new Error(`verdaccio refused the account ${name}: ${response.status} ${JSON.stringify(body)}`);
    return body.token;
  }

  /**
   * Publishes one version with the request `npm publish` sends (the manifest and the tarball,
   * base64, in one document), without npm's checks and start-up: seeding publishes hundreds.
   * The version becomes `latest`; publish a package's versions in ascending order.
   */
  async publish(version: PackageVersion, token: string): Promise<void> {
    const file = `${version.name.split('/').pop() ?? version.name}-${version.version}.tgz`;
    const document = {
      _id: version.name,
      name: version.name,
      'dist-tags': { latest: version.version },
      versions: {
        [version.version]: {
          ...version.manifest,
          _id: `${version.name}@${version.version}`,
          dist: { integrity: version.integrity, shasum: version.shasum, tarball: new URL(`${version.name}/-/${file}`, this.url).href },
        },
      },
      _attachments: { [file]: { content_type: 'application/octet-stream', data: version.tarball.toString('base64'), length: version.tarball.length } },
    };
    const response = await fetch(new URL(version.name.replace('/', '%2f'), this.url), {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(document),
    });
    if (!response.ok) throw new Error(`publishing ${version.name}@${version.version} failed: ${response.status} ${await response.text()}`);
  }

  async stop(): Promise<void> {
    await stopChild(this.child);
  }
}
