import { open, readFile } from 'node:fs/promises';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';

/** `--file -` reads stdin, as with most Unix tools. */
export const STDIN_FILE = '-';

/**
 * The body to sign or send, as raw bytes: the file's, or stdin's when no file is given. Stdin
 * that is a terminal would wait for typing forever, so that is MISSING_INPUT instead.
 */
export async function readBody(io: CliIo, file: string | undefined): Promise<Buffer> {
  if (file !== undefined && file !== STDIN_FILE) return readInputFile(file);
  if (io.stdin.isTTY === true) {
    throw new CliError('MISSING_INPUT', 'No body: pass --file body.json, or pipe the body on stdin', {});
  }
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** A whole file; UNREADABLE_FILE (exit 2) when it is missing, a directory or not readable. */
export async function readInputFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw unreadable(file, error);
  }
}

/** The first `length` bytes of a file (fewer if it is shorter), to tell formats apart. */
export async function readFileStart(file: string, length: number): Promise<Buffer> {
  let handle;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } catch (error) {
    throw unreadable(file, error);
  } finally {
    await handle?.close();
  }
}

export function unreadable(file: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = REASONS[code ?? ''] ?? (error instanceof Error ? error.message : String(error));
  return new CliError('UNREADABLE_FILE', `Cannot read ${file}: ${reason}`, { file, errno: code });
}

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};
