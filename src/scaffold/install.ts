import { spawn } from 'node:child_process';
import { PACKAGE_MANAGERS, type PackageManager } from './choices.js';
import { ScaffoldError } from './errors.js';

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
