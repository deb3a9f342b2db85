import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { PACKAGE_MANAGERS, type PackageManager } from './choices.js';
import { ScaffoldError } from './errors.js';

/** What Windows runs a command name as, when PATHEXT does not say. */
const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';

/**
 * Checks, before anything is asked or written, that the package manager that is to install the
 * dependencies is on PATH: otherwise PACKAGE_MANAGER_NOT_FOUND ("pnpm is not installed"), with
 * the two ways on. Only PATH is looked at; nothing is run (a Corepack shim, which is on PATH,
 * counts as installed).
 */
export function checkPackageManager(packageManager: PackageManager, env: NodeJS.ProcessEnv): void {
  if (isOnPath(packageManager, env)) return;
  throw new ScaffoldError(
    'PACKAGE_MANAGER_NOT_FOUND',
    `${packageManager} is not installed (no ${packageManager} on PATH): install it, choose another with --package-manager, or skip the install with --no-install`,
    { packageManager },
  );
}

function isOnPath(command: string, env: NodeJS.ProcessEnv): boolean {
  const windows = process.platform === 'win32';
  // Windows spells the variable Path; its environment object is case-insensitive, a copy may not be.
  const path = env.PATH ?? env.Path ?? '';
  const names = windows ? (env.PATHEXT ?? DEFAULT_PATHEXT).split(';').map((extension) => `${command}${extension}`) : [command];
  return path
    .split(delimiter)
    .filter((directory) => directory !== '')
    .some((directory) => names.some((name) => isExecutableFile(join(directory, name), windows)));
}

function isExecutableFile(file: string, windows: boolean): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (!windows) accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `<package manager> install` in the project, its output going straight to the terminal.
 * A failure leaves the project in place: INSTALL_FAILED says how to finish by hand.
 */
export async function installDependencies(directory: string, packageManager: PackageManager): Promise<void> {
  const command = PACKAGE_MANAGERS[packageManager].install;
  const exitCode = await new Promise<number | string>((resolve) => {
    // On Windows the package managers are .cmd scripts, which only a shell can start.
    const child = spawn(packageManager, ['install'], { cwd: directory, stdio: 'inherit', shell: process.platform === 'win32' });
    child.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  if (exitCode !== 0) {
    throw new ScaffoldError(
      'INSTALL_FAILED',
      `${command} failed (${exitCode}); the project is written: run ${command} in ${directory} to finish`,
      { directory, packageManager, exitCode },
    );
  }
}
