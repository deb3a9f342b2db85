import { timingSafeEqual } from 'node:crypto';
import { SandboxError } from '../errors.js';

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * Which of the accounts' keys `Authorization: Bearer sk_test_…` carries: its index, or undefined.
 * Every key is compared, each in constant time, whichever matches.
 */
export function accountOf(header: string | undefined, apiKeys: readonly string[]): number | undefined {
  const given = BEARER.exec(header ?? '')?.[1];
  if (given === undefined) return undefined;
  let found: number | undefined;
  apiKeys.forEach((apiKey, index) => {
    if (sameKey(given, apiKey) && found === undefined) found = index;
  });
  return found;
}

/**
 * `Authorization: Bearer sk_test_…`: the index of the account whose key it is. A live key is
 * refused with a hint that this is the sandbox, which acts on test data only.
 * @throws SandboxError UNAUTHORIZED with `details.hint`
 */
export function authenticate(header: string | undefined, apiKeys: readonly string[]): number {
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
  const index = accountOf(header, apiKeys);
  if (index === undefined) {
    throw new SandboxError('UNAUTHORIZED', 'Unknown API key', { hint: 'Use an sk_test_… key the sandbox printed at start-up (or the one given with --api-key).' });
  }
  return index;
}

function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
