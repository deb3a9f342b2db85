import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SignatureCase, TestVectors } from '../../src/catalog/test-vectors.js';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import type * as LibraryEntry from '../../src/index.js';
import type * as TestKit from '../../src/testing/index.js';
import { codeBlocks, type CodeBlock } from '../docs/code-blocks.js';
import { dist, root } from '../helpers/dist.js';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';
import { waitFor } from '../scaffold/helpers.js';

/*
 * docs/other-languages.md, run: each snippet is taken from the page as it is, saved beside a
 * small harness (test/fixtures/other-languages/) and run with Debian's python3, go, php, ruby
 * and java against signed samples of all 18 types from the built test kit (acct-webhook/testing),
 * the platform's way and the Standard Webhooks way (`v1`, and `v1a` but in Python):
 * valid deliveries are accepted; a tampered body, a wrong secret, a stale and a future timestamp
 * are refused. The Python receiver also validates the bodies with the JSON Schema the packed
 * package ships. The Python and Go platform snippets also run inside small HTTP receivers of the
 * standard library (receiver.py, receiver-go/receiver.go) that `acct-webhook conformance` checks:
 * every case passes. Each platform verifier, and each Standard Webhooks verifier (`v1`; `v1a` but in
 * Python), also checks every case of its schemes in the shipped test vectors (below). A language
 * that is missing fails the test: `npm test` installs them first
 * (test/helpers/machine-tools.mjs; alone: npm run test:tools).
 */

const PAGE = 'docs/other-languages.md';
const FIXTURES = join(root, 'test', 'fixtures', 'other-languages');
/** Compiling Go or Java on a busy 2-core machine takes a while. */
const LANGUAGE_TIMEOUT_MS = OUTCOME_TIMEOUT_MS;
/** How far from now the stale and future cases are signed: twice the 300 s window. */
const OFF_WINDOW_SECONDS = 600;

type Kit = typeof TestKit;
type Library = typeof LibraryEntry;
type Verdict = 'accepted' | 'refused' | 'invalid';
interface Case {
  name: string;
  body: string;
  signature: string;
  timestamp: string;
  secret: string;
  expected: Verdict;
}

const blocks = codeBlocks(join(root, PAGE));
const blockOf = (language: string, index = 0): CodeBlock => {
  const block = blocks.filter((candidate) => candidate.language === language)[index];
  if (!block) throw new Error(`${PAGE} has no ${language} block #${index + 1}`);
  return block;
};

/** Debian's python3 when there is one (python3-jsonschema is installed for it), else the one on PATH. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** A language's command, or a failure naming Debian's package, as `npm run test:tools` installs it. */
function requireTool(tool: string, debianPackage: string): void {
  const found = spawnSync('sh', ['-c', 'command -v "$0"', tool]).status === 0;
  expect(found, `${tool} is not installed: npm run test:tools installs it (apt-get install -y ${debianPackage})`).toBe(true);
}

function run(command: string, args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', timeout: LANGUAGE_TIMEOUT_MS, ...(env === undefined ? {} : { env: { ...process.env, ...env } }) });
}

let work: string;
let cases: Case[];
let receiverCases: Case[];
let vectors: TestVectors;
/** Standard Webhooks deliveries of all 18 types, signed now, per version. */
let standardCases: Record<'standard-webhooks/v1' | 'standard-webhooks/v1a', StandardCase[]>;

/** A Standard Webhooks delivery: its line for harness-standard.* and the verdict expected. */
interface StandardCase {
  name: string;
  line: string;
  expected: Verdict;
}

function line(testCase: Case): string {
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  return [testCase.name, base64(testCase.body), testCase.signature, testCase.timestamp, base64(testCase.secret)].join('\t');
}

function verdicts(output: string): Map<string, string> {
  return new Map(output.trimEnd().split('\n').map((text) => text.split('\t') as [string, string]));
}

/** Runs a harness over `list` and compares each verdict; returns the counts for the report. */
function expectVerdicts(language: string, output: string, list: readonly Pick<Case, 'name' | 'expected'>[]): Record<Verdict, number> {
  const got = verdicts(output);
  const wrong = list.filter((testCase) => got.get(testCase.name) !== testCase.expected).map((testCase) => `${testCase.name}: ${got.get(testCase.name)}`);
  expect(wrong, language).toEqual([]);
  expect(got.size).toBe(list.length);
  const counts = { accepted: 0, refused: 0, invalid: 0 };
  for (const testCase of list) counts[testCase.expected]++;
  console.log(`${language}: ${list.length} deliveries, ${counts.accepted} accepted, ${counts.refused} refused${counts.invalid ? `, ${counts.invalid} refused as invalid (422)` : ''}`);
  return counts;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'acct-webhook-languages-'));
  const kit = (await import(pathToFileURL(join(dist, 'testing.js')).href)) as Kit;
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const wrongSecret = `whsec_${randomBytes(24).toString('base64url')}`;
  const now = Math.floor(Date.now() / 1000);
  const signed = (name: string, body: string, key: string, timestamp: number, expected: Verdict, sentBody = body): Case => {
    const headers = kit.signedHeaders(body, key, { timestamp });
    return { name, body: sentBody, signature: headers['x-svc-signature'], timestamp: headers['x-svc-timestamp'], secret, expected };
  };
  cases = EVENT_TYPES.flatMap((type) => {
    const event = kit.createTestEvent(type);
    const body = JSON.stringify(event);
    return [
      signed(`${type} valid`, body, secret, now, 'accepted'),
      signed(`${type} tampered body`, body, secret, now, 'refused', body.replace(event.id, `${event.id}0`)),
      signed(`${type} wrong secret`, body, wrongSecret, now, 'refused'),
      signed(`${type} stale timestamp`, body, secret, now - OFF_WINDOW_SECONDS, 'refused'),
      signed(`${type} future timestamp`, body, secret, now + OFF_WINDOW_SECONDS, 'refused'),
    ];
  });
  // The same deliveries the Standard Webhooks way: v1 with a whsec_ secret, v1a with an ed25519 pair.
  const { signStandardWebhook } = (await import(pathToFileURL(join(dist, 'index.js')).href)) as Library;
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const hmacKey = () => {
    const key = `whsec_${randomBytes(32).toString('base64')}`;
    return { signing: key, verifying: key };
  };
  const ed25519Pair = () => {
    const pair = generateKeyPairSync('ed25519');
    const last32 = (der: Buffer) => der.subarray(-32).toString('base64');
    return { signing: `whsk_${last32(pair.privateKey.export({ format: 'der', type: 'pkcs8' }))}`, verifying: `whpk_${last32(pair.publicKey.export({ format: 'der', type: 'spki' }))}` };
  };
  const standardOf = (version: string, key: { signing: string; verifying: string }, wrong: { signing: string }): StandardCase[] =>
    EVENT_TYPES.flatMap((type) => {
      const event = kit.createTestEvent(type);
      const body = JSON.stringify(event);
      const delivery = (name: string, signingKey: string, timestamp: number, expected: Verdict, sentBody = body): StandardCase => {
        const { headers } = signStandardWebhook({ id: event.id, payload: body, secret: signingKey, timestamp });
        const fullName = `${version} ${type} ${name}`;
        const fields = [fullName, base64(sentBody), headers['webhook-id'], headers['webhook-timestamp'], headers['webhook-signature'], base64(key.verifying)];
        return { name: fullName, expected, line: fields.join('\t') };
      };
      return [
        delivery('valid', key.signing, now, 'accepted'),
        delivery('tampered body', key.signing, now, 'refused', body.replace(event.id, `${event.id}0`)),
        delivery('wrong key', wrong.signing, now, 'refused'),
        delivery('stale timestamp', key.signing, now - OFF_WINDOW_SECONDS, 'refused'),
        delivery('future timestamp', key.signing, now + OFF_WINDOW_SECONDS, 'refused'),
      ];
    });
  standardCases = {
    'standard-webhooks/v1': standardOf('v1', hmacKey(), hmacKey()),
    'standard-webhooks/v1a': standardOf('v1a', ed25519Pair(), ed25519Pair()),
  };
  // Genuine deliveries whose body the schema refuses: a required field gone, an amount as a string.
  receiverCases = [
    ...cases,
    ...EVENT_TYPES.flatMap((type) => {
      const { id: _id, ...withoutId } = kit.createTestEvent(type);
      const numberId = kit.createTestEvent(type, { data: { object: { id: 42 } } } as never);
      return [
        signed(`${type} without id`, JSON.stringify(withoutId), secret, now, 'invalid'),
        signed(`${type} object id a number`, JSON.stringify(numberId), secret, now, 'invalid'),
      ];
    }),
  ];
  // The parser agrees: the bodies the schema must refuse are the ones parseEvent refuses.
  const { parseEvent } = (await import(pathToFileURL(join(dist, 'index.js')).href)) as Library;
  const parses = (body: string) => {
    try {
      parseEvent(body);
      return true;
    } catch {
      return false;
    }
  };
  // Every body is a valid event except the ones made invalid (a tampered body only has another id).
  expect(receiverCases.filter((testCase) => parses(testCase.body) !== (testCase.expected !== 'invalid')).map((testCase) => testCase.name)).toEqual([]);
  writeFileSync(join(work, 'cases.tsv'), `${cases.map(line).join('\n')}\n`);
  writeFileSync(join(work, 'receiver-cases.tsv'), `${receiverCases.map(line).join('\n')}\n`);
  // The JSON Schema as the package ships it: taken from the packed tarball.
  execFileSync('tar', ['-xzf', inject('tarball'), '-C', work, 'package/schemas/json-schema/event.json', 'package/schemas/test-vectors.json']);
  copyFileSync(join(work, 'package', 'schemas', 'json-schema', 'event.json'), join(work, 'event.json'));
  // The signature test vectors as the package ships them: one line per case and secret it holds.
  vectors = JSON.parse(readFileSync(join(work, 'package', 'schemas', 'test-vectors.json'), 'utf8')) as TestVectors;
  writeFileSync(join(work, 'vectors.tsv'), `${platformVectors().flatMap(vectorLines).map(line).join('\n')}\n`);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe(`the code of ${PAGE}`, () => {
  it('is five verifiers of each scheme, the conformance command and one Python validator: every block on the page runs below', () => {
    expect(blocks.map((block) => block.language)).toEqual(['python', 'go', 'php', 'ruby', 'java', 'python', 'go', 'php', 'ruby', 'java', 'sh', 'python']);
  });

  it('Python (hmac.compare_digest) accepts the valid deliveries of all 18 types and refuses the others', () => {
    requireTool(PYTHON, 'python3');
    writeFileSync(join(work, 'verify.py'), blockOf('python').code);
    copyFileSync(join(FIXTURES, 'harness.py'), join(work, 'harness.py'));
    expectVerdicts('Python', run(PYTHON, ['harness.py', 'cases.tsv'], work), cases);
  }, LANGUAGE_TIMEOUT_MS);

  it('Go (hmac.Equal) accepts the valid deliveries of all 18 types and refuses the others', () => {
    requireTool('go', 'golang');
    const directory = join(work, 'go');
    execFileSync('mkdir', ['-p', directory]);
    writeFileSync(join(directory, 'verify.go'), blockOf('go').code.replace(/^package webhook$/m, 'package main'));
    copyFileSync(join(FIXTURES, 'harness.go'), join(directory, 'harness.go'));
    expectVerdicts('Go', run('go', ['run', 'verify.go', 'harness.go', join(work, 'cases.tsv')], directory), cases);
  }, LANGUAGE_TIMEOUT_MS);

  it('PHP (hash_equals) accepts the valid deliveries of all 18 types and refuses the others', () => {
    requireTool('php', 'php-cli');
    writeFileSync(join(work, 'verify.php'), blockOf('php').code);
    copyFileSync(join(FIXTURES, 'harness.php'), join(work, 'harness.php'));
    expectVerdicts('PHP', run('php', ['harness.php', 'cases.tsv'], work), cases);
  }, LANGUAGE_TIMEOUT_MS);

  it('Ruby (OpenSSL.secure_compare) accepts the valid deliveries of all 18 types and refuses the others', () => {
    requireTool('ruby', 'ruby');
    writeFileSync(join(work, 'verify.rb'), blockOf('ruby').code);
    copyFileSync(join(FIXTURES, 'harness.rb'), join(work, 'harness.rb'));
    expectVerdicts('Ruby', run('ruby', ['harness.rb', 'cases.tsv'], work), cases);
  }, LANGUAGE_TIMEOUT_MS);

  it('Java (MessageDigest.isEqual) accepts the valid deliveries of all 18 types and refuses the others', () => {
    requireTool('javac', 'default-jdk-headless');
    requireTool('java', 'default-jdk-headless');
    const directory = join(work, 'java');
    execFileSync('mkdir', ['-p', directory]);
    writeFileSync(join(directory, 'WebhookVerifier.java'), blockOf('java').code);
    copyFileSync(join(FIXTURES, 'Harness.java'), join(directory, 'Harness.java'));
    run('javac', ['-d', 'classes', 'WebhookVerifier.java', 'Harness.java'], directory);
    expectVerdicts('Java', run('java', ['-cp', 'classes', 'Harness', join(work, 'cases.tsv')], directory), cases);
  }, LANGUAGE_TIMEOUT_MS);

  /** The Standard Webhooks deliveries of `kinds`, written for a harness; the file and the list. */
  const standardDeliveries = (kinds: readonly VectorKind[]): { file: string; list: StandardCase[] } => {
    const list = kinds.map((kind) => {
      if (kind === 'svc') throw new Error('not a Standard Webhooks version');
      return standardCases[kind];
    }).flat();
    const file = join(work, `standard-${kinds.map((kind) => kind.replace('standard-webhooks/', '')).join('-')}.tsv`);
    writeFileSync(file, `${list.map((testCase) => testCase.line).join('\n')}\n`);
    return { file, list };
  };
  const versionsOf = (kinds: readonly VectorKind[]) => kinds.map((kind) => kind.replace('standard-webhooks/', '')).join(' and ');

  it(`Python's Standard Webhooks verifier (${versionsOf(STANDARD_KINDS.Python)}) accepts the valid deliveries of all 18 types and refuses the others`, () => {
    requireTool(PYTHON, 'python3');
    const directory = join(work, 'python-standard');
    execFileSync('mkdir', ['-p', directory]);
    writeFileSync(join(directory, 'verify_standard.py'), blockOf('python', 1).code);
    copyFileSync(join(FIXTURES, 'harness-standard.py'), join(directory, 'harness-standard.py'));
    const { file, list } = standardDeliveries(STANDARD_KINDS.Python);
    expectVerdicts('Python (Standard Webhooks)', run(PYTHON, ['harness-standard.py', file], directory), list);
  }, LANGUAGE_TIMEOUT_MS);

  it(`Go's Standard Webhooks verifier (${versionsOf(STANDARD_KINDS.Go)}) accepts the valid deliveries of all 18 types and refuses the others`, () => {
    requireTool('go', 'golang');
    const directory = join(work, 'go-standard');
    execFileSync('mkdir', ['-p', directory]);
    writeFileSync(join(directory, 'verify_standard.go'), blockOf('go', 1).code.replace(/^package webhook$/m, 'package main'));
    copyFileSync(join(FIXTURES, 'harness-standard.go'), join(directory, 'harness_standard.go'));
    const { file, list } = standardDeliveries(STANDARD_KINDS.Go);
    expectVerdicts('Go (Standard Webhooks)', run('go', ['run', 'verify_standard.go', 'harness_standard.go', file], directory), list);
  }, LANGUAGE_TIMEOUT_MS);

  it(`PHP's Standard Webhooks verifier (${versionsOf(STANDARD_KINDS.PHP)}) accepts the valid deliveries of all 18 types and refuses the others`, () => {
    requireTool('php', 'php-cli');
    const directory = join(work, 'php-standard');
    execFileSync('mkdir', ['-p', directory]);
    writeFileSync(join(directory, 'verify_standard.php'), blockOf('php', 1).code);
    copyFileSync(join(FIXTURES, 'harness-standard.php'), join(directory, 'harness-standard.php'));
    const { file, list } = standardDeliveries(STANDARD_KINDS.PHP);
    expectVerdicts('PHP (Standard Webhooks)', run('php', ['harness-standard.php', file], directory), list);
  }, LANGUAGE_TIMEOUT_MS);

  it(`Ruby's Standard Webhooks verifier (${versionsOf(STANDARD_KINDS.Ruby)}) accepts the valid deliveries of all 18 types and refuses the others`, () => {
    requireTool('ruby', 'ruby');
    const directory = join(work, 'ruby-standard');
    execFileSync('mkdir', ['-p', directory]);
    writeFileSync(join(directory, 'verify_standard.rb'), blockOf('ruby', 1).code);
    copyFileSync(join(FIXTURES, 'harness-standard.rb'), join(directory, 'harness-standard.rb'));
    const { file, list } = standardDeliveries(STANDARD_KINDS.Ruby);
    expectVerdicts('Ruby (Standard Webhooks)', run('ruby', ['harness-standard.rb', file], directory), list);
  }, LANGUAGE_TIMEOUT_MS);

  it(`Java's Standard Webhooks verifier (${versionsOf(STANDARD_KINDS.Java)}) accepts the valid deliveries of all 18 types and refuses the others`, () => {
    requireTool('javac', 'default-jdk-headless');
    requireTool('java', 'default-jdk-headless');
    const directory = join(work, 'java-standard');
    execFileSync('mkdir', ['-p', directory]);
    writeFileSync(join(directory, 'StandardWebhookVerifier.java'), blockOf('java', 1).code);
    copyFileSync(join(FIXTURES, 'HarnessStandard.java'), join(directory, 'HarnessStandard.java'));
    run('javac', ['-d', 'classes', 'StandardWebhookVerifier.java', 'HarnessStandard.java'], directory);
    const { file, list } = standardDeliveries(STANDARD_KINDS.Java);
    expectVerdicts('Java (Standard Webhooks)', run('java', ['-cp', 'classes', 'HarnessStandard', file], directory), list);
  }, LANGUAGE_TIMEOUT_MS);

  it('the Python receiver validates the genuine bodies against the shipped event.json: the 18 samples pass, broken ones are 422', () => {
    requireTool(PYTHON, 'python3');
    const jsonschema = spawnSync(PYTHON, ['-c', 'import jsonschema']);
    expect(jsonschema.status, `${PYTHON} has no jsonschema module: npm run test:tools installs it (apt-get install -y python3-jsonschema)`).toBe(0);
    writeFileSync(join(work, 'verify.py'), blockOf('python').code);
    writeFileSync(join(work, 'receiver.py'), blockOf('python', 2).code);
    copyFileSync(join(FIXTURES, 'harness.py'), join(work, 'harness.py'));
    const counts = expectVerdicts('Python receiver', run(PYTHON, ['harness.py', 'receiver-cases.tsv', '--validate'], work), receiverCases);
    expect(counts).toEqual({ accepted: 18, refused: 72, invalid: 36 });
  }, LANGUAGE_TIMEOUT_MS);
});

/** A receiver in a child process that prints its port first; stopped by {@link stopReceiver}. */
interface LanguageReceiver {
  child: ChildProcess;
  url: string;
  output: () => string;
}

async function startReceiver(command: string, args: readonly string[], cwd: string, secret: string): Promise<LanguageReceiver> {
  const child = spawn(command, args, { cwd, env: { ...process.env, WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => /^\d+\n/.test(output) || child.exitCode !== null, `${command} printing its port; got:\n${output}`, LANGUAGE_TIMEOUT_MS);
  const port = /^(\d+)\n/.exec(output)?.[1];
  if (port === undefined) throw new Error(`${command} ended (${child.exitCode}) without a port:\n${output}`);
  return { child, url: `http://127.0.0.1:${port}/webhooks`, output: () => output };
}

async function stopReceiver(receiver: LanguageReceiver | undefined): Promise<void> {
  if (!receiver || receiver.child.exitCode !== null || receiver.child.signalCode !== null) return;
  const closed = new Promise((resolve) => receiver.child.once('close', resolve));
  receiver.child.kill('SIGTERM');
  await closed;
}

/** `acct-webhook conformance <url>` from the built bin, to its end. */
function conformance(url: string, secret: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(root, 'bin', 'acct-webhook.js'), 'conformance', url], {
    env: { ...process.env, WEBHOOK_SECRET: secret, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: LANGUAGE_TIMEOUT_MS,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe(`acct-webhook conformance against receivers made of the snippets of ${PAGE}`, () => {
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;

  it('Python (http.server around verify_webhook): every case passes, exit 0', async () => {
    requireTool(PYTHON, 'python3');
    const directory = join(work, 'python-receiver');
    execFileSync('mkdir', ['-p', directory]);
    writeFileSync(join(directory, 'verify.py'), blockOf('python').code);
    copyFileSync(join(FIXTURES, 'receiver.py'), join(directory, 'receiver.py'));
    let receiver: LanguageReceiver | undefined;
    try {
      receiver = await startReceiver(PYTHON, ['receiver.py'], directory, secret);
      const result = conformance(receiver.url, secret);
      expect(result.status, `${result.stdout}${result.stderr}${receiver.output()}`).toBe(0);
      expect(result.stdout).toMatch(/^(\d+) of \1 cases passed$/m);
      console.log(`Python receiver: ${/^\d+ of \d+ cases passed$/m.exec(result.stdout)?.[0]}`);
    } finally {
      await stopReceiver(receiver);
    }
  }, LANGUAGE_TIMEOUT_MS);

  it('Go (net/http and http.MaxBytesReader around VerifyWebhook): every case passes, exit 0', async () => {
    requireTool('go', 'golang');
    const directory = join(work, 'go-receiver');
    execFileSync('mkdir', ['-p', directory]);
    writeFileSync(join(directory, 'verify.go'), blockOf('go').code.replace(/^package webhook$/m, 'package main'));
    copyFileSync(join(FIXTURES, 'receiver-go', 'receiver.go'), join(directory, 'receiver.go'));
    run('go', ['build', '-o', 'receiver', 'verify.go', 'receiver.go'], directory);
    let receiver: LanguageReceiver | undefined;
    try {
      receiver = await startReceiver(join(directory, 'receiver'), [], directory, secret);
      const result = conformance(receiver.url, secret);
      expect(result.status, `${result.stdout}${result.stderr}${receiver.output()}`).toBe(0);
      expect(result.stdout).toMatch(/^(\d+) of \1 cases passed$/m);
      console.log(`Go receiver: ${/^\d+ of \d+ cases passed$/m.exec(result.stdout)?.[0]}`);
    } finally {
      await stopReceiver(receiver);
    }
  }, LANGUAGE_TIMEOUT_MS);
});

/*
 * schemas/test-vectors.json through the same snippets: each language checks every case of the
 * platform's scheme with the platform's verifier, and every case of Standard Webhooks `v1` (and
 * `v1a`, where the snippet speaks it) with the Standard Webhooks one, as if the time were the
 * file's `now` — the snippet's clock call is replaced by one that reads HARNESS_NOW, nothing else
 * of it changes — and a case held with several secrets (a rotation) is accepted when one of them
 * verifies. The verdict must be the expected one, except where the vectors say either conforms (a
 * signature in upper-case hex: the contract writes lower-case hex, and every snippet compares the
 * hex text; a Standard Webhooks timestamp with a fraction, which the snippets refuse). The cases a
 * harness printed are counted per scheme and must be the file's `counts`: a harness that skips a
 * case, or a language that runs no case of a scheme it should, fails.
 */

/** What a verifier is checked on: the platform's scheme, or one version of Standard Webhooks. */
type VectorKind = 'svc' | 'standard-webhooks/v1' | 'standard-webhooks/v1a';
const VECTOR_KINDS: readonly VectorKind[] = ['svc', 'standard-webhooks/v1', 'standard-webhooks/v1a'];
const kindOf = (testCase: SignatureCase): string => (testCase.scheme === 'svc' ? 'svc' : `${testCase.scheme}/${testCase.version}`);
const vectorsOf = (kind: VectorKind): SignatureCase[] => vectors.cases.filter((testCase) => kindOf(testCase) === kind);
const platformVectors = (): SignatureCase[] => vectorsOf('svc');

/**
 * The Standard Webhooks versions each language's snippet verifies: `v1` everywhere, `v1a` where
 * the standard library has ed25519 (Python's has not; the page names the package to use instead).
 */
const STANDARD_KINDS = {
  Python: ['standard-webhooks/v1'],
  Go: ['standard-webhooks/v1', 'standard-webhooks/v1a'],
  PHP: ['standard-webhooks/v1', 'standard-webhooks/v1a'],
  Ruby: ['standard-webhooks/v1', 'standard-webhooks/v1a'],
  Java: ['standard-webhooks/v1', 'standard-webhooks/v1a'],
} as const satisfies Record<string, readonly VectorKind[]>;

function vectorLines(testCase: SignatureCase): Case[] {
  return testCase.secrets.map((secret, index) => ({
    name: `${testCase.name}#${index}`,
    body: testCase.body,
    signature: testCase.headers['x-svc-signature'] ?? '',
    timestamp: testCase.headers['x-svc-timestamp'] ?? '',
    secret,
    expected: testCase.expected.verdict,
  }));
}

/**
 * A Standard Webhooks case for harness-standard.*, one line per secret it holds: name, body,
 * webhook-id, webhook-timestamp, webhook-signature, key (base64 for the bytes); a missing header
 * is an empty field.
 */
function standardLines(testCase: SignatureCase): string[] {
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  return testCase.secrets.map((key, index) => {
    const headers = [testCase.headers['webhook-id'] ?? '', testCase.headers['webhook-timestamp'] ?? '', testCase.headers['webhook-signature'] ?? ''];
    expect(headers.filter((value) => /[\t\n]/.test(value)), `${testCase.name}: a header the tab-separated file cannot carry`).toEqual([]);
    return [`${testCase.name}#${index}`, base64(testCase.body), ...headers, base64(key)].join('\t');
  });
}

/** The Standard Webhooks cases of `kinds` as a harness reads them, in `directory`; returns the file's name. */
function writeStandardVectors(directory: string, kinds: readonly VectorKind[]): string {
  const lines = kinds.flatMap(vectorsOf).flatMap(standardLines);
  writeFileSync(join(directory, 'standard-vectors.tsv'), `${lines.join('\n')}\n`);
  return 'standard-vectors.tsv';
}

/** The snippet's code with its one clock call replaced. */
function withClock(code: string, call: string, replacement: string): string {
  expect(code.split(call).length - 1, `the snippet calls ${call} once`).toBe(1);
  return code.replace(call, replacement);
}

/**
 * Each vector's verdict from a harness's output; fails with the cases that differ from the file,
 * and unless the output holds every case of each of `kinds` — the file's `counts` — and nothing else.
 */
function expectVectorVerdicts(language: string, output: string, kinds: readonly VectorKind[]): void {
  const printed = output.trimEnd().split('\n');
  const got = verdicts(output);
  expect(got.size, `${language} printed a case twice`).toBe(printed.length);
  const wrong: string[] = [];
  for (const testCase of kinds.flatMap(vectorsOf)) {
    const lines = testCase.secrets.map((_secret, index) => got.get(`${testCase.name}#${index}`));
    if (lines.some((verdict) => verdict !== 'accepted' && verdict !== 'refused')) wrong.push(`${testCase.name}: no verdict`);
    const verdict = lines.includes('accepted') ? 'accepted' : 'refused';
    if (verdict !== testCase.expected.verdict && testCase.expected.either_conforms !== true) wrong.push(`${testCase.name}: ${verdict}`);
  }
  expect(wrong, language).toEqual([]);
  // The cases run, counted from what the harness printed, per scheme.
  const byName = new Map(vectors.cases.map((testCase) => [testCase.name, testCase]));
  const ran: Record<string, Set<string>> = {};
  for (const name of got.keys()) {
    const testCase = byName.get(name.replace(/#\d+$/, ''));
    expect(testCase, `${language} printed ${name}, which is no case of the vectors`).toBeDefined();
    (ran[kindOf(testCase!)] ??= new Set()).add(testCase!.name);
  }
  const counts = Object.fromEntries(Object.entries(ran).map(([kind, names]) => [kind, names.size]));
  expect(counts, `${language}: the cases run per scheme`).toEqual(Object.fromEntries(kinds.map((kind) => [kind, vectors.counts[kind]])));
  const choices = kinds.flatMap(vectorsOf).filter((testCase) => testCase.expected.either_conforms === true).length;
  console.log(`${language}: ${kinds.map((kind) => `${counts[kind]} ${kind}`).join(', ')} test vectors as expected (${choices} where either verdict conforms)`);
}

describe(`the code of ${PAGE} against schemas/test-vectors.json`, () => {
  const env = () => ({ HARNESS_NOW: String(vectors.now) });
  const directoryFor = (name: string): string => {
    const directory = join(work, name);
    execFileSync('mkdir', ['-p', directory]);
    return directory;
  };

  it("has vectors of each scheme to check, and they are the file's counts and all its cases", () => {
    for (const kind of VECTOR_KINDS) {
      expect(vectorsOf(kind).length, kind).toBe(vectors.counts[kind]);
      expect(vectorsOf(kind).length, kind).toBeGreaterThan(10);
    }
    expect(Object.keys(vectors.counts).sort()).toEqual([...VECTOR_KINDS].sort());
    expect(VECTOR_KINDS.flatMap(vectorsOf).length).toBe(vectors.cases.length);
  });

  it('has a Standard Webhooks verifier in each language: v1 in all five, v1a (whpk_ keys) in all but Python', () => {
    const snippets = { Python: blockOf('python', 1), Go: blockOf('go', 1), PHP: blockOf('php', 1), Ruby: blockOf('ruby', 1), Java: blockOf('java', 1) };
    for (const [language, block] of Object.entries(snippets)) {
      expect(block.code, language).toContain('whsec_');
      expect(block.code.includes('whpk_'), `${language} verifies v1a`).toBe((STANDARD_KINDS[language as keyof typeof STANDARD_KINDS] as readonly string[]).includes('standard-webhooks/v1a'));
    }
  });

  it('Python verifies each platform vector as expected', () => {
    requireTool(PYTHON, 'python3');
    const directory = directoryFor('python-vectors');
    writeFileSync(join(directory, 'verify.py'), withClock(blockOf('python').code, 'time.time()', 'int(__import__("os").environ["HARNESS_NOW"])'));
    copyFileSync(join(FIXTURES, 'harness.py'), join(directory, 'harness.py'));
    expectVectorVerdicts('Python', run(PYTHON, ['harness.py', join(work, 'vectors.tsv')], directory, env()), ['svc']);
  }, LANGUAGE_TIMEOUT_MS);

  it('Python verifies each Standard Webhooks v1 vector as expected', () => {
    requireTool(PYTHON, 'python3');
    const directory = directoryFor('python-standard-vectors');
    writeFileSync(join(directory, 'verify_standard.py'), withClock(blockOf('python', 1).code, 'time.time()', 'int(__import__("os").environ["HARNESS_NOW"])'));
    copyFileSync(join(FIXTURES, 'harness-standard.py'), join(directory, 'harness-standard.py'));
    const file = writeStandardVectors(directory, STANDARD_KINDS.Python);
    expectVectorVerdicts('Python (Standard Webhooks)', run(PYTHON, ['harness-standard.py', file], directory, env()), STANDARD_KINDS.Python);
  }, LANGUAGE_TIMEOUT_MS);

  it('Go verifies each platform vector as expected', () => {
    requireTool('go', 'golang');
    const directory = directoryFor('go-vectors');
    const code = withClock(blockOf('go').code.replace(/^package webhook$/m, 'package main'), 'time.Now()', 'time.Unix(harnessNow(), 0)');
    writeFileSync(join(directory, 'verify.go'), code);
    copyFileSync(join(FIXTURES, 'harness.go'), join(directory, 'harness.go'));
    expectVectorVerdicts('Go', run('go', ['run', 'verify.go', 'harness.go', join(work, 'vectors.tsv')], directory, env()), ['svc']);
  }, LANGUAGE_TIMEOUT_MS);

  it('Go verifies each Standard Webhooks v1 and v1a vector as expected', () => {
    requireTool('go', 'golang');
    const directory = directoryFor('go-standard-vectors');
    const code = withClock(blockOf('go', 1).code.replace(/^package webhook$/m, 'package main'), 'time.Now()', 'time.Unix(harnessNow(), 0)');
    writeFileSync(join(directory, 'verify_standard.go'), code);
    copyFileSync(join(FIXTURES, 'harness-standard.go'), join(directory, 'harness_standard.go'));
    const file = writeStandardVectors(directory, STANDARD_KINDS.Go);
    expectVectorVerdicts('Go (Standard Webhooks)', run('go', ['run', 'verify_standard.go', 'harness_standard.go', file], directory, env()), STANDARD_KINDS.Go);
  }, LANGUAGE_TIMEOUT_MS);

  it('PHP verifies each platform vector as expected', () => {
    requireTool('php', 'php-cli');
    const directory = directoryFor('php-vectors');
    writeFileSync(join(directory, 'verify.php'), withClock(blockOf('php').code, 'time()', "(int) getenv('HARNESS_NOW')"));
    copyFileSync(join(FIXTURES, 'harness.php'), join(directory, 'harness.php'));
    expectVectorVerdicts('PHP', run('php', ['harness.php', join(work, 'vectors.tsv')], directory, env()), ['svc']);
  }, LANGUAGE_TIMEOUT_MS);

  it('PHP verifies each Standard Webhooks v1 and v1a vector as expected', () => {
    requireTool('php', 'php-cli');
    const sodium = spawnSync('php', ['-r', "exit(function_exists('sodium_crypto_sign_verify_detached') ? 0 : 1);"]);
    expect(sodium.status, 'php has no sodium extension (Debian builds it into php-cli)').toBe(0);
    const directory = directoryFor('php-standard-vectors');
    writeFileSync(join(directory, 'verify_standard.php'), withClock(blockOf('php', 1).code, 'time()', "(int) getenv('HARNESS_NOW')"));
    copyFileSync(join(FIXTURES, 'harness-standard.php'), join(directory, 'harness-standard.php'));
    const file = writeStandardVectors(directory, STANDARD_KINDS.PHP);
    expectVectorVerdicts('PHP (Standard Webhooks)', run('php', ['harness-standard.php', file], directory, env()), STANDARD_KINDS.PHP);
  }, LANGUAGE_TIMEOUT_MS);

  it('Ruby verifies each platform vector as expected', () => {
    requireTool('ruby', 'ruby');
    const directory = directoryFor('ruby-vectors');
    writeFileSync(join(directory, 'verify.rb'), withClock(blockOf('ruby').code, 'Time.now.to_i', 'Integer(ENV.fetch("HARNESS_NOW"))'));
    copyFileSync(join(FIXTURES, 'harness.rb'), join(directory, 'harness.rb'));
    expectVectorVerdicts('Ruby', run('ruby', ['harness.rb', join(work, 'vectors.tsv')], directory, env()), ['svc']);
  }, LANGUAGE_TIMEOUT_MS);

  it('Ruby verifies each Standard Webhooks v1 and v1a vector as expected', () => {
    requireTool('ruby', 'ruby');
    const directory = directoryFor('ruby-standard-vectors');
    writeFileSync(join(directory, 'verify_standard.rb'), withClock(blockOf('ruby', 1).code, 'Time.now.to_i', 'Integer(ENV.fetch("HARNESS_NOW"))'));
    copyFileSync(join(FIXTURES, 'harness-standard.rb'), join(directory, 'harness-standard.rb'));
    const file = writeStandardVectors(directory, STANDARD_KINDS.Ruby);
    expectVectorVerdicts('Ruby (Standard Webhooks)', run('ruby', ['harness-standard.rb', file], directory, env()), STANDARD_KINDS.Ruby);
  }, LANGUAGE_TIMEOUT_MS);

  it('Java verifies each platform vector as expected', () => {
    requireTool('javac', 'default-jdk-headless');
    requireTool('java', 'default-jdk-headless');
    const directory = directoryFor('java-vectors');
    writeFileSync(join(directory, 'WebhookVerifier.java'), withClock(blockOf('java').code, 'System.currentTimeMillis()', 'Long.parseLong(System.getenv("HARNESS_NOW")) * 1000'));
    copyFileSync(join(FIXTURES, 'Harness.java'), join(directory, 'Harness.java'));
    run('javac', ['-d', 'classes', 'WebhookVerifier.java', 'Harness.java'], directory);
    expectVectorVerdicts('Java', run('java', ['-cp', 'classes', 'Harness', join(work, 'vectors.tsv')], directory, env()), ['svc']);
  }, LANGUAGE_TIMEOUT_MS);

  it('Java verifies each Standard Webhooks v1 and v1a vector as expected', () => {
    requireTool('javac', 'default-jdk-headless');
    requireTool('java', 'default-jdk-headless');
    const directory = directoryFor('java-standard-vectors');
    writeFileSync(join(directory, 'StandardWebhookVerifier.java'), withClock(blockOf('java', 1).code, 'System.currentTimeMillis()', 'Long.parseLong(System.getenv("HARNESS_NOW")) * 1000'));
    copyFileSync(join(FIXTURES, 'HarnessStandard.java'), join(directory, 'HarnessStandard.java'));
    run('javac', ['-d', 'classes', 'StandardWebhookVerifier.java', 'HarnessStandard.java'], directory);
    const file = writeStandardVectors(directory, STANDARD_KINDS.Java);
    expectVectorVerdicts('Java (Standard Webhooks)', run('java', ['-cp', 'classes', 'HarnessStandard', file], directory, env()), STANDARD_KINDS.Java);
  }, LANGUAGE_TIMEOUT_MS);
});
