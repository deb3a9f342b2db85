import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type GitOutcome = 'initialised' | 'inside-a-repository' | 'git-unavailable' | 'init-failed';

/**
 * `git init` in the project, unless it already lies inside a work tree (a monorepo, or a
 * cloned empty repository): a repository nested in another one is rarely what anyone wants.
 * The first commit is left to the user, whose name and e-mail git may not know yet. Without a
 * repository the project is still complete, so each of these is an outcome, not an error.
 */
export async function initGitRepository(directory: string): Promise<GitOutcome> {
  try {
    await run('git', ['--version']);
  } catch {
    return 'git-unavailable';
  }
  if (await insideWorkTree(directory)) return 'inside-a-repository';
  try {
    await run('git', ['init', '--quiet'], { cwd: directory });
    return 'initialised';
  } catch {
    return 'init-failed';
  }
}

async function insideWorkTree(directory: string): Promise<boolean> {
  try {
    const { stdout } = await run('git', ['rev-parse', '--is-inside-work-tree'], { cwd: directory });
    return stdout.trim() === 'true';
  } catch {
    return false;
  }
}
