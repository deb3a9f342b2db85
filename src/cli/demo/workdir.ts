import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../errors.js';

/** Where the demo keeps its two SQLite files, and whether they outlive it. */
export interface DemoWorkdir {
  directory: string;
  /** The dispatcher's database: registrations, deliveries, the delivery log (what replay reads). */
  dispatchDatabase: string;
  /** The receiver's idempotency store: the event ids it handled. */
  eventsDatabase: string;
  /** Kept after the demo (`--keep`), or removed. */
  kept: boolean;
}

/**
 * The demo's working directory: a fresh temporary one, removed afterwards — or, with `--keep`,
 * kept (`keep` is the directory given with it, or true for the temporary one). A directory given
 * must be new or empty, so that an earlier demo's log is never mixed into this one's.
 */
export async function demoWorkdir(keep: string | true | undefined): Promise<DemoWorkdir> {
  const directory = typeof keep === 'string' ? await emptyDirectory(keep) : await mkdtemp(join(tmpdir(), 'acct-webhook-demo-'));
  return { directory, dispatchDatabase: join(directory, 'dispatch.db'), eventsDatabase: join(directory, 'events.db'), kept: keep !== undefined };
}

/** Removes the directory unless it is to be kept. */
export async function finishWorkdir(workdir: DemoWorkdir): Promise<void> {
  if (!workdir.kept) await rm(workdir.directory, { recursive: true, force: true });
}

async function emptyDirectory(directory: string): Promise<string> {
  try {
    await mkdir(directory, { recursive: true });
    if ((await readdir(directory)).length > 0) throw new CliError('INVALID_OPTION', `--keep ${directory}: the directory is not empty; give a new or empty one`, { option: '--keep' });
  } catch (error) {
    if (error instanceof CliError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError('INVALID_OPTION', `--keep ${directory}: cannot use it as the demo's directory: ${reason}`, { option: '--keep' }, { cause: error });
  }
  return directory;
}
