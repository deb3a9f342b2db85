import { realpathSync } from 'node:fs';
import { intro } from '@clack/prompts';
import { errorLine } from '../cli-kit/error-line.js';
import { dependencyNote } from './acct-webhook-dependency.js';
import { COMMAND_NAME, parseArguments } from './arguments.js';
import { EXIT_CODES, ScaffoldError, type ExitCode } from './errors.js';
import { findPackageRoot, readGeneratorPackage } from './generator-package.js';
import { initGitRepository } from './git.js';
import { installDependencies } from './install.js';
import { isRegistryInstall } from './install-source.js';
import { nextSteps } from './next-steps.js';
import { renderProject } from './project-files.js';
import { canPrompt, resolveProjectOptions } from './resolve-options.js';
import { writeProject } from './write.js';

/** Where the CLI runs: the process's surroundings, passed in so tests can run it in-process. */
export interface CliContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  /** A file inside the create-acct-webhook package (the launcher): templates and versions are found from it. */
  scriptPath: string;
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * `create-acct-webhook [dir] [flags]`: checks everything, asks for what is missing (on a
 * terminal), renders the project in memory, writes it, initialises git, installs, and prints
 * the next steps. Returns the exit code; errors become one line on stderr, never a stack trace.
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<ExitCode> {
  try {
    const root = findPackageRoot(realpathSync(context.scriptPath));
    const generator = readGeneratorPackage(root);
    const args = parseArguments(argv, generator.version);
    if ('output' in args) {
      context.stdout(args.output);
      return EXIT_CODES.ok;
    }
    const interactive = canPrompt(args.yes, context.stdinIsTTY, context.stdoutIsTTY, context.env);
    if (interactive) intro(`${COMMAND_NAME} ${generator.version}`);
    const options = await resolveProjectOptions(args, { cwd: context.cwd, env: context.env, interactive });
    writeProject(options.directory, renderProject(options, generator));
    // Before the install, which is what fails when ^<version> is not published yet.
    const note = dependencyNote(options.acctWebhookSpec, generator, isRegistryInstall(root));
    if (note !== undefined) context.stdout(note);
    const git = options.git ? await initGitRepository(options.directory) : undefined;
    if (options.install) {
      context.stdout(`Installing dependencies with ${options.packageManager}…\n`);
      await installDependencies(options.directory, options.packageManager);
    }
    context.stdout(nextSteps(options, context.cwd, git));
    return EXIT_CODES.ok;
  } catch (error) {
    return reportError(error, context);
  }
}

function reportError(error: unknown, context: CliContext): ExitCode {
  context.stderr(errorLine(COMMAND_NAME, error));
  return error instanceof ScaffoldError ? error.exitCode : EXIT_CODES.failure;
}
