import { createWriteStream, type WriteStream } from 'node:fs';
import { CliError } from './errors.js';

/** A file opened for writing, or INVALID_OPTION (exit 2) when it cannot be: a missing directory, no permission. */
export async function openOutputFile(file: string): Promise<WriteStream> {
  const stream = createWriteStream(file);
  await new Promise<void>((resolve, reject) => {
    stream.once('ready', () => resolve());
    stream.once('error', (error: NodeJS.ErrnoException) =>
      reject(new CliError('INVALID_OPTION', `Cannot write ${file}: ${error.code === 'ENOENT' ? 'no such directory' : error.message}`, { file, errno: error.code })),
    );
  });
  return stream;
}
