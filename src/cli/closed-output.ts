/** What a write ends with once the reader of a pipe has gone (`acct-webhook … | head -1`), and every write after it. */
const CLOSED_OUTPUT_CODES: ReadonlySet<string> = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/**
 * Calls `handler` once when the reader of any of `streams` goes away, instead of the unhandled
 * `error` event that would crash the process with a stack trace. Any other stream error is
 * thrown as before.
 */
export function onClosedOutput(streams: readonly NodeJS.WritableStream[], handler: () => void): void {
  let closed = false;
  const listener = (error: NodeJS.ErrnoException): void => {
    if (!CLOSED_OUTPUT_CODES.has(error.code ?? '')) throw error;
    if (closed) return;
    closed = true;
    handler();
  };
  for (const stream of streams) stream.on('error', listener);
}
