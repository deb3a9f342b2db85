import { describe, expect, it } from 'vitest';
import { ReceiverError, WebhookHandlerError } from '../../src/index.js';
import { lastErrorMessage } from '../../src/receiver/inbox-error.js';

class LedgerError extends Error {
  override name = 'LedgerError';
}

describe("what an inbox event keeps of a failed run (last_error.message)", () => {
  it.each([
    ['one handler threw a TypeError', [new TypeError('customer cus_1 not found')], 'TypeError: customer cus_1 not found'],
    ['a subclass with its own name', [new LedgerError('booking refused: period closed')], 'LedgerError: booking refused: period closed'],
    ['an error without a message', [new RangeError()], 'RangeError'],
    ['two handlers failed', [new Error('mail server down'), new TypeError('x is undefined')], 'Error: mail server down; TypeError: x is undefined'],
    ['a thrown string', ['plain text'], 'plain text'],
    ['a thrown object', [{ status: 502 }], '{"status":502}'],
    ['a thrown undefined', [undefined], 'undefined'],
  ])('%s → %s', (_case, thrown, kept) => {
    expect(lastErrorMessage(new WebhookHandlerError(thrown))).toBe(kept);
  });

  it("keeps the receiver's own message for a failure that is not a handler's (a timeout)", () => {
    expect(lastErrorMessage(new ReceiverError('HANDLER_TIMEOUT', 'The handlers did not finish within 20 ms'))).toBe('The handlers did not finish within 20 ms');
  });

  it('is one line of text a terminal shows as it is: newlines, escape sequences and NUL become spaces', () => {
    const thrown = new Error('first line\r\nsecond\tline \u001b[31mred\u001b[0m \u0000end\u009b');
    expect(lastErrorMessage(new WebhookHandlerError([thrown]))).toBe('Error: first line second line  [31mred [0m  end');
  });

  it('survives an error whose message cannot be read, and a value that cannot be written as JSON', () => {
    const unreadable = new Error('x');
    Object.defineProperty(unreadable, 'message', {
      get() {
        throw new Error('no');
      },
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(lastErrorMessage(new WebhookHandlerError([unreadable, cyclic]))).toBe('[object Error]; [object Object]');
  });

  it('is cut at 1 024 bytes of UTF-8 between characters, never inside one, and says so with "…"', () => {
    // 1 021 bytes of text before "…": "Error: " (7 bytes), then 4-byte characters; the 254th would end at byte 1 023.
    const kept = lastErrorMessage(new WebhookHandlerError([new Error('😀'.repeat(2_000))]));
    expect(kept).toBe(`Error: ${'😀'.repeat(253)}…`);
    expect(Buffer.byteLength(kept)).toBe(1_022);
    // A message of exactly 1 024 bytes is kept whole.
    const whole = `Error: ${'a'.repeat(1_017)}`;
    expect(lastErrorMessage(new WebhookHandlerError([new Error('a'.repeat(1_017))]))).toBe(whole);
  });

  it('replaces an unpaired surrogate (it has no UTF-8 form) with U+FFFD', () => {
    expect(lastErrorMessage(new WebhookHandlerError([new Error('half \uD83D of a pair')]))).toBe('Error: half \uFFFD of a pair');
  });
});
