import { once } from 'node:events';
import type { ExportedAttempt } from './records.js';

/**
 * Writes one JSON object per line (`\n`-terminated, UTF-8), waiting for `drain` when the stream
 * is full, so memory stays flat however long the log is. The stream is left open.
 * Returns the number of lines written.
 */
export async function writeJsonLines(stream: NodeJS.WritableStream, rows: AsyncIterable<ExportedAttempt>): Promise<number> {
  let lines = 0;
  for await (const row of rows) {
    if (!stream.write(`${JSON.stringify(row)}\n`, 'utf8')) await once(stream, 'drain');
    lines += 1;
  }
  return lines;
}
