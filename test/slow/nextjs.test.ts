import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import { childEnvironment, provideSqliteBinding, readJson, REPO_ROOT, runProcess, temporaryDirectory, waitFor } from '../scaffold/helpers.js';

/*
 * A real Next.js 16 app, as a user writes it (docs/frameworks.md#nextjs-16): acct-webhook installed
 * from its packed tarball, next/react at the versions this repository pins (its devDependencies,
 * so npm's cache has them: the install is offline but for a cold cache), built with `next build`
 * (Turbopack, TypeScript checked) and served by `next start` on 127.0.0.1. Signed events go to the
 * App Router (`fetchHandler`) and to the Pages Router (`nodeHandler`, `bodyParser: false`); the
 * handlers write each event they run to a file, which the test reads.
 */
const SECRET = 'whsec_nextjsAppRouterPagesRouter000000';
const PARTNER_SECRETS = { biz_alpine: 'whsec_nextjsPartnerAlpine0000000000', biz_danube: 'whsec_nextjsPartnerDanube0000000000' };
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'];
const PACKAGES = ['next', 'react', 'react-dom'];
const TYPES = ['typescript', '@types/node', '@types/react', '@types/react-dom'];

/** The version of `name` installed in this repository: pinned by its lock file, so in npm's cache. */
const installedVersion = (name: string): string => readJson<{ version: string }>(join(REPO_ROOT, 'node_modules', name, 'package.json')).version;

const FILES: Record<string, string> = {
  'lib/handlers.ts': `import { appendFileSync } from 'node:fs';
import { Webhooks } from 'acct-webhook';

/** Each event a handler runs for is appended to HANDLED_FILE as \`<router> <event id>\`. */
export function handlers(router: string): Webhooks {
  return new Webhooks().on('invoice.paid', (event) => {
    appendFileSync(process.env.HANDLED_FILE!, \`\${router} \${event.id}\\n\`);
  });
}
`,
  'app/webhooks/route.ts': `import { fetchHandler } from 'acct-webhook';
import { handlers } from '../../lib/handlers';

export const POST = fetchHandler({ secret: process.env.WEBHOOK_SECRET!, handlers: handlers('app') });
`,
  // The mistake of the App Router: the route reads the body before it hands the Request on.
  'app/read-first/route.ts': `import { fetchHandler } from 'acct-webhook';
import { handlers } from '../../lib/handlers';

const webhooks = fetchHandler({ secret: process.env.WEBHOOK_SECRET!, handlers: handlers('read-first') });

export async function POST(request: Request): Promise<Response> {
  if (request.headers.get('x-read-as') === 'reader') request.body!.getReader();
  else console.log('read first:', ((await request.json()) as { type: string }).type);
  return webhooks(request);
}
`,
  // A partner app: one dynamic route, the secret of each delivery chosen by the business its body names.
  'app/partners/[app]/webhooks/route.ts': `import { fetchHandler } from 'acct-webhook';
import { handlers } from '../../../../lib/handlers';

const secrets: Record<string, string> = JSON.parse(process.env.PARTNER_SECRETS!);

export const POST = fetchHandler({
  secret: async ({ path, businessId }) => (path === '/partners/acme/webhooks' && businessId !== undefined ? secrets[businessId] : undefined),
  handlers: handlers('partner'),
});
`,
  'app/orders/route.ts': `export async function POST(request: Request): Promise<Response> {
  return Response.json({ parsed: await request.json() });
}
`,
  'app/layout.tsx': `export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
`,
  'pages/api/webhooks.ts': `import type { PageConfig } from 'next';
import { nodeHandler } from 'acct-webhook';
import { handlers } from '../../lib/handlers';

export const config: PageConfig = { api: { bodyParser: false } };

export default nodeHandler({ path: '/api/webhooks', secret: process.env.WEBHOOK_SECRET!, handlers: handlers('pages') });
`,
  // The mistake: no \`bodyParser: false\`, so Next.js parses the JSON before the handler runs.
  'pages/api/forgot-body-parser.ts': `import { nodeHandler } from 'acct-webhook';
import { handlers } from '../../lib/handlers';

export default nodeHandler({ path: '/api/forgot-body-parser', secret: process.env.WEBHOOK_SECRET!, handlers: handlers('forgot') });
`,
  'pages/api/orders.ts': `import type { NextApiRequest, NextApiResponse } from 'next';

export default function orders(req: NextApiRequest, res: NextApiResponse): void {
  res.status(200).json({ parsed: req.body as unknown });
}
`,
  'next.config.ts': `import type { NextConfig } from 'next';

const config: NextConfig = {};
export default config;
`,
  'tsconfig.json': JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2022',
        lib: ['dom', 'es2023'],
        strict: true,
        noEmit: true,
        module: 'esnext',
        moduleResolution: 'bundler',
        jsx: 'react-jsx',
        isolatedModules: true,
        skipLibCheck: true,
        esModuleInterop: true,
        plugins: [{ name: 'next' }],
      },
      include: ['next-env.d.ts', '**/*.ts', '**/*.tsx', '.next/types/**/*.ts'],
      exclude: ['node_modules'],
    },
    null,
    2,
  ),
};

const workspace = temporaryDirectory('nextjs');
const app = join(workspace.path, 'next-receiver');
const handledFile = join(workspace.path, 'handled.log');
const environment = childEnvironment({ NEXT_TELEMETRY_DISABLED: '1', WEBHOOK_SECRET: SECRET, PARTNER_SECRETS: JSON.stringify(PARTNER_SECRETS), HANDLED_FILE: handledFile });
let server: ChildProcessWithoutNullStreams | undefined;
let output = '';
let url = '';

beforeAll(async () => {
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(app, file)), { recursive: true });
    writeFileSync(join(app, file), text);
  }
  const dependencies = Object.fromEntries([...PACKAGES.map((name) => [name, installedVersion(name)]), ['acct-webhook', `file:${inject('tarball')}`]]);
  const devDependencies = Object.fromEntries(TYPES.map((name) => [name, installedVersion(name)]));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'next-receiver', private: true, dependencies, devDependencies }, null, 2));
  const install = await runProcess('npm', ['install', ...NPM_FLAGS], app, environment);
  expect(install.exitCode, install.stderr).toBe(0);
  await provideSqliteBinding(app);

  // `next build` loads every route module to collect its configuration: the secret must be there.
  const started = Date.now();
  const build = await runProcess(process.execPath, [join(app, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], app, environment);
  expect(build.exitCode, `${build.stdout}\n${build.stderr}`).toBe(0);
  console.log(`next build: ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // Its own process group, so that afterAll ends next and every process it started.
  server = spawn(process.execPath, [join(app, 'node_modules', 'next', 'dist', 'bin', 'next'), 'start', '--hostname', '127.0.0.1', '--port', '0'], { cwd: app, env: environment, detached: true });
  const child = server;
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => /Ready in/.test(output) || child.exitCode !== null, 'next start to be ready');
  const local = /Local:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output);
  if (!local || child.exitCode !== null) throw new Error(`next start did not start:\n${output}`);
  url = local[1]!;
});

afterAll(async () => {
  const child = server;
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    const kill = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(kill);
  }
  workspace.remove();
});

async function deliver(path: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${url}${path}`, { method: 'POST', body, headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const handled = (): string[] => (existsSync(handledFile) ? readFileSync(handledFile, 'utf8').trim().split('\n') : []);

describe('a Next.js 16 app (next build, next start)', () => {
  const first = createTestEvent('invoice.paid');
  const second = createTestEvent('invoice.paid');

  it('App Router (fetchHandler in app/webhooks/route.ts): 200 and the handler ran, the redelivery a duplicate, a tampered body 401', async () => {
    const { body, headers } = signedRequest(first, SECRET);
    expect(await deliver('/webhooks', body, headers)).toEqual({ status: 200, body: expect.objectContaining({ id: first.id, duplicate: false }) });
    expect(await deliver('/webhooks', body, headers)).toEqual({ status: 200, body: expect.objectContaining({ id: first.id, duplicate: true }) });
    const tampered = await deliver('/webhooks', body.replace('"invoice.paid"', '"invoice.paid" '), headers);
    expect(tampered).toEqual({ status: 401, body: { error: expect.objectContaining({ code: 'SIGNATURE_MISMATCH' }) } });
    expect(handled()).toEqual([`app ${first.id}`]);
  });

  it('Pages Router (nodeHandler, bodyParser: false): 200 and the handler ran, a tampered body 401; the same SQLite file makes an event the App Router handled a duplicate', async () => {
    const { body, headers } = signedRequest(second, SECRET);
    expect(await deliver('/api/webhooks', body, headers)).toEqual({ status: 200, body: expect.objectContaining({ id: second.id, duplicate: false }) });
    const tampered = await deliver('/api/webhooks', body.replace('"invoice.paid"', '"invoice.paid" '), headers);
    expect(tampered).toEqual({ status: 401, body: { error: expect.objectContaining({ code: 'SIGNATURE_MISMATCH' }) } });
    const fromAppRouter = signedRequest(first, SECRET);
    expect(await deliver('/api/webhooks', fromAppRouter.body, fromAppRouter.headers)).toEqual({ status: 200, body: expect.objectContaining({ id: first.id, duplicate: true }) });
    expect(handled()).toEqual([`app ${first.id}`, `pages ${second.id}`]);
  });

  it('Pages Router without bodyParser: false: 500 BODY_ALREADY_PARSED at once, the fix in the log line — not a 401, not a 408 after the body timeout', async () => {
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    const started = Date.now();
    expect(await deliver('/api/forgot-body-parser', body, headers)).toEqual({ status: 500, body: { error: expect.objectContaining({ code: 'BODY_ALREADY_PARSED' }) } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(handled()).not.toContain(`forgot ${event.id}`);
    await waitFor(() => output.includes('BODY_ALREADY_PARSED'), 'the log line of the refusal');
    expect(output).toContain('config.api.bodyParser = false');
  });

  it.each(['json', 'reader'])('App Router, a route that read the body first (%s): 500 BODY_ALREADY_PARSED, the fix in the log line — not a 500 INTERNAL_ERROR', async (readAs) => {
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    const refusals = (): number => output.split('request.clone()').length - 1;
    const before = refusals();
    expect(await deliver('/read-first', body, { ...headers, 'x-read-as': readAs })).toEqual({ status: 500, body: { error: expect.objectContaining({ code: 'BODY_ALREADY_PARSED' }) } });
    expect(handled()).not.toContain(`read-first ${event.id}`);
    await waitFor(() => refusals() > before, 'the log line of the refusal');
    expect(output).not.toMatch(/INTERNAL_ERROR|ReadableStream is locked/);
  });

  it('a partner route (a secret function): each business under its own secret, the path as Next.js routed it, an unknown business 401', async () => {
    const alpine = createTestEvent('invoice.paid', { business_id: 'biz_alpine' });
    const danube = createTestEvent('invoice.paid', { business_id: 'biz_danube' });
    const signedAlpine = signedRequest(alpine, PARTNER_SECRETS.biz_alpine);
    expect(await deliver('/partners/acme/webhooks', signedAlpine.body, signedAlpine.headers)).toEqual({ status: 200, body: expect.objectContaining({ id: alpine.id }) });
    const signedDanube = signedRequest(danube, PARTNER_SECRETS.biz_danube);
    expect(await deliver('/partners/acme/webhooks?attempt=1', signedDanube.body, signedDanube.headers)).toEqual({ status: 200, body: expect.objectContaining({ id: danube.id }) });
    const forged = signedRequest(createTestEvent('invoice.paid', { business_id: 'biz_alpine' }), PARTNER_SECRETS.biz_danube);
    expect(await deliver('/partners/acme/webhooks', forged.body, forged.headers)).toEqual({ status: 401, body: { error: expect.objectContaining({ code: 'SIGNATURE_MISMATCH' }) } });
    const elsewhere = signedRequest(createTestEvent('invoice.paid', { business_id: 'biz_alpine' }), PARTNER_SECRETS.biz_alpine);
    expect(await deliver('/partners/other/webhooks', elsewhere.body, elsewhere.headers)).toEqual({ status: 401, body: { error: expect.objectContaining({ code: 'UNKNOWN_BUSINESS' }) } });
    expect(handled().filter((line) => line.startsWith('partner '))).toEqual([`partner ${alpine.id}`, `partner ${danube.id}`]);
  });

  it("the app's own JSON routes still parse, in both routers", async () => {
    const json = { 'content-type': 'application/json' };
    expect(await deliver('/orders', '{"order": 7}', json)).toEqual({ status: 200, body: { parsed: { order: 7 } } });
    expect(await deliver('/api/orders', '{"order": 8}', json)).toEqual({ status: 200, body: { parsed: { order: 8 } } });
  });
});
