import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  conformanceCases,
  describeAnswer,
  describeExpectation,
  judgeAnswer,
  type ConformanceAnswer,
  type ConformanceCase,
  type ConformanceRequest,
  type ConformanceScheme,
} from '../../catalog/conformance.js';
import { DELIVERY_TIMEOUT_MS } from '../../dispatcher/dispatcher-defaults.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../receiver/options.js';
import { generateSigningKeyPair } from '../../signing/standard-webhooks.js';
import type { CommandContext } from '../context.js';
import { EXIT_CODES, type ExitCode } from '../exit-codes.js';
import { renderTable } from '../table.js';

/** What `acct-webhook conformance` takes besides the URL. */
export interface ConformanceCommandOptions {
  secret?: string;
  scheme: ConformanceScheme;
  allowRemote?: boolean;
  maxBodyBytes?: number;
  json?: boolean;
}

/** At most this much of an answer's body is read (for its `error.code`); the rest is dropped. */
const ANSWER_READ_LIMIT_BYTES = 64 * 1024;

/** One row: the case, what each of its requests got, and the verdict. */
interface Verdict {
  testCase: ConformanceCase;
  answers: ConformanceAnswer[];
  pass: boolean;
}

/**
 * Sends every case to `url`, one request after the other, each signed just before it leaves;
 * prints the table (or JSON) and returns exit 0 only when every case passed.
 */
export async function runConformance(context: CommandContext, url: string, options: ConformanceCommandOptions & { secret: string }): Promise<ExitCode> {
  const run = randomBytes(6).toString('hex');
  const cases = conformanceCases({
    scheme: options.scheme,
    secret: options.secret,
    wrongKeys: {
      svc: `whsec_${randomBytes(24).toString('base64url')}`,
      standard: `whsec_${randomBytes(32).toString('base64')}`,
      privateKey: generateSigningKeyPair().privateKey,
    },
    eventId: (name) => `evt_conformance_${run}_${name.replace(/[^a-z0-9]+/gi, '_')}`,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  });
  const verdicts: Verdict[] = [];
  for (const testCase of cases) {
    const answers: ConformanceAnswer[] = [];
    for (const next of testCase.requests(Math.floor(Date.now() / 1000))) answers.push(await send(url, next, context.userAgent));
    verdicts.push({ testCase, answers, pass: answers.every((answer) => judgeAnswer(testCase.expected, answer)) });
  }
  const failed = verdicts.filter((verdict) => !verdict.pass);
  if (options.json === true) {
    context.output.json({
      url,
      scheme: options.scheme,
      passed: verdicts.length - failed.length,
      failed: failed.length,
      cases: verdicts.map(({ testCase, answers, pass }) => ({
        name: testCase.name,
        description: testCase.description,
        expected: describeExpectation(testCase.expected),
        answers,
        pass,
      })),
    });
  } else {
    printTable(context, url, options, verdicts, failed);
  }
  return failed.length === 0 ? EXIT_CODES.ok : EXIT_CODES.failure;
}

function printTable(context: CommandContext, url: string, options: ConformanceCommandOptions & { secret: string }, verdicts: readonly Verdict[], failed: readonly Verdict[]): void {
  const { output } = context;
  const scheme = options.scheme === 'svc' ? 'svc' : `standard-webhooks ${options.secret.startsWith('whsk_') ? 'v1a' : 'v1'}`;
  output.line(`Conformance of ${url} (scheme ${scheme}): ${verdicts.length} cases`);
  output.raw(
    renderTable(
      verdicts,
      [
        { header: 'case', value: (verdict) => verdict.testCase.name },
        { header: 'expected', value: (verdict) => describeExpectation(verdict.testCase.expected) },
        { header: 'actual', value: (verdict) => verdict.answers.map(describeAnswer).join(', ') },
        { header: 'result', value: (verdict) => (verdict.pass ? output.style('green', 'pass') : output.style('red', 'FAIL')) },
      ],
      { boxed: output.stdoutIsTTY },
    ),
  );
  const summary = `${verdicts.length - failed.length} of ${verdicts.length} cases passed`;
  output.line(failed.length === 0 ? summary : `${summary}; failed: ${failed.map((verdict) => verdict.testCase.name).join(', ')}`);
}

/**
 * POSTs one request and reads the answer's status (and `error.code`, when its body is the error
 * envelope). The answer counts even when the receiver answered before reading the whole body (a
 * 413) and the rest of the upload then failed.
 */
function send(url: string, next: ConformanceRequest, userAgent: string): Promise<ConformanceAnswer> {
  const body = Buffer.from(next.body, 'utf8');
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: ConformanceAnswer) => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const outgoing = request(url, {
      method: 'POST',
      headers: { ...next.headers, 'user-agent': userAgent, 'content-length': String(body.byteLength) },
      timeout: DELIVERY_TIMEOUT_MS,
    });
    outgoing.on('response', (response) => void readAnswer(response).then(settle));
    outgoing.on('timeout', () => {
      settle({ error: `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` });
      outgoing.destroy();
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => settle({ error: error.code ?? error.message }));
    outgoing.end(body);
  });
}

async function readAnswer(response: IncomingMessage): Promise<ConformanceAnswer> {
  const status = response.statusCode ?? 0;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      if (size < ANSWER_READ_LIMIT_BYTES) chunks.push(chunk);
      size += chunk.byteLength;
    }
  } catch {
    // The status is the answer; a body cut short only loses its code.
  }
  return { status, code: errorCodeOf(Buffer.concat(chunks).toString('utf8')) };
}

function errorCodeOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown } } | null;
    const code = parsed?.error?.code;
    return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}
