import { createReadStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { isSqliteFile, openDispatcher } from '../dispatch-database.js';
import { unreadable } from '../input.js';
import { readLogLines, type LogEntry } from './log-lines.js';

/**
 * The attempts of a delivery log, oldest first: from a JSON Lines export, or straight from a
 * dispatcher's SQLite file — which goes through the dispatcher's own export, so both read the
 * same format the same way.
 */
export async function* readDeliveryLog(file: string): AsyncGenerator<LogEntry> {
  if (await isSqliteFile(file)) yield* readDispatchDatabase(file);
  else yield* readLogLines(await openReadable(file));
}

async function* readDispatchDatabase(file: string): AsyncGenerator<LogEntry> {
  const dispatcher = await openDispatcher(file);
  const stream = new PassThrough();
  const exporting = dispatcher.deliveries.export(stream).finally(() => stream.end());
  try {
    yield* readLogLines(stream);
    await exporting;
  } finally {
    // After an early stop the export may wait for a drain that never comes: let it go.
    stream.destroy();
    exporting.catch(() => undefined);
    await dispatcher.close();
  }
}

/** A read stream that has opened, so that a missing file is UNREADABLE_FILE here, not an error event later. */
async function openReadable(file: string): Promise<NodeJS.ReadableStream> {
  const stream = createReadStream(file);
  await new Promise<void>((resolve, reject) => {
    stream.once('ready', () => resolve());
    stream.once('error', (error) => reject(unreadable(file, error)));
  });
  return stream;
}
