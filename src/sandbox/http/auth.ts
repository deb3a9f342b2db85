import { timingSafeEqual } from 'node:crypto';
import { SandboxError } from '../errors.js';

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * `Authorization: Bearer sk_test_…`, compared in constant time. A live key is refused with a
 * hint that this is the sandbox, which acts on test data only.
 * @throws SandboxError UNAUTHORIZED with `details.hint`
 */
export function authenticate(header: string | undefined, apiKey: string): void {
  const given = BEARER.exec(header ?? '')?.[1];
  if (given === undefined) {
    throw new SandboxError('UNAUTHORIZED', 'No API key: send Authorization: Bearer sk_test_…', {
      hint: 'Send the test key the sandbox printed at start-up as Authorization: Bearer sk_test_…',
    });
  }
  if (given.startsWith('sk_live_')) {
    throw new SandboxError('UNAUTHORIZED', 'A live key was sent to the sandbox', {
      hint: 'This is the sandbox: it acts on test data and takes sk_test_ keys only. Never send a live key to it.',
    });
  }
  if (!sameKey(given, apiKey)) {
    throw new SandboxError('UNAUTHORIZED', 'Unknown API key', { hint: 'Use the sk_test_… key the sandbox printed at start-up (or the one given with --api-key).' });
  }
}

function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
