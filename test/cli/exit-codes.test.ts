import { describe, expect, it } from 'vitest';
import { CLI_ERROR_EXITS, CliError, type CliErrorCode } from '../../src/cli/errors.js';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { ConfigurationError, WebhookVerificationError } from '../../src/kernel/errors.js';

describe('exitCodeFor', () => {
  const pinned: Record<CliErrorCode, number> = {
    INVALID_ARGUMENTS: 2,
    INVALID_OPTION: 2,
    MISSING_SECRET: 2,
    MISSING_INPUT: 2,
    UNKNOWN_EVENT_TYPE: 2,
    UNREADABLE_FILE: 2,
    MALFORMED_INPUT: 2,
    PAYLOAD_NOT_KEPT: 2,
    REMOTE_URL: 2,
    UNREACHABLE: 1,
    DELIVERY_FAILED: 1,
    DEMO_FAILED: 1,
    CANCELLED: 130,
  };

  it.each(Object.entries(pinned))('the CLI\'s %s → exit %i', (code, exit) => {
    expect(exitCodeFor(new CliError(code as CliErrorCode, 'x', {}))).toBe(exit);
  });

  it('lists every CLI code once, with its exit', () => {
    expect(Object.keys(CLI_ERROR_EXITS).sort()).toEqual(Object.keys(pinned).sort());
  });

  it('a refusal of the library → 2; a failed verification or anything unexpected → 1', () => {
    expect(exitCodeFor(new ConfigurationError({ option: '--db', reason: 'is not a file' }))).toBe(2);
    expect(exitCodeFor(new WebhookVerificationError('SIGNATURE_MISMATCH', 'x', {}))).toBe(1);
    expect(exitCodeFor(new Error('boom'))).toBe(1);
  });
});
