import { resolve } from 'node:path';
import { parseDependencySpec, specForProject } from './acct-webhook-dependency.js';
import type { CliArguments } from './arguments.js';
import { ADAPTERS, PACKAGE_MANAGERS, STORES, type PackageManager } from './choices.js';
import { DEFAULT_ADAPTER, DEFAULT_EVENTS, DEFAULT_PACKAGE_MANAGER, DEFAULT_PROJECT_NAME, DEFAULT_STORE } from './project-defaults.js';
import { ScaffoldError } from './errors.js';
import { checkPackageManager } from './install.js';
import { parseEventList } from './events.js';
import { packageNameProblem } from './package-name.js';
import type { ProjectOptions } from './project-options.js';
import { askAdapter, askEvents, askProjectName, askStore } from './prompts.js';
import { checkProjectName, checkTargetDirectory, parseChoice, projectNameFor } from './validation.js';

export interface ResolveContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Whether to ask for what the flags did not say (see {@link canPrompt}). */
  interactive: boolean;
}

/**
 * Questions need a person at a terminal: both stdin and stdout a TTY, no `--yes`, and `CI` not
 * set (an empty, `0` or `false` CI counts as not set, as most tools read it).
 */
export function canPrompt(yes: boolean, stdinIsTTY: boolean, stdoutIsTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  const inCi = ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
  return !yes && stdinIsTTY && stdoutIsTTY && !inCi;
}

/**
 * The package manager that started us (`npm create`, `pnpm create`, `yarn create` say so in
 * `npm_config_user_agent`), else npm.
 */
export function detectPackageManager(env: NodeJS.ProcessEnv): PackageManager {
  const agent = env.npm_config_user_agent ?? '';
  if (agent.startsWith('pnpm/')) return 'pnpm';
  if (agent.startsWith('yarn/')) return 'yarn';
  return DEFAULT_PACKAGE_MANAGER;
}

/**
 * Flags, answers and defaults merged into checked options. Every flag is checked before the
 * first question, so a typo on the command line fails at once instead of after three answers.
 */
export async function resolveProjectOptions(args: CliArguments, context: ResolveContext): Promise<ProjectOptions> {
  const events = args.events === undefined ? undefined : parseEventList(args.events);
  const store = args.store === undefined ? undefined : parseChoice('store', args.store, STORES);
  const adapter = args.adapter === undefined ? undefined : parseChoice('adapter', args.adapter, ADAPTERS);
  const packageManager =
    args.packageManager === undefined ? detectPackageManager(context.env) : parseChoice('package manager', args.packageManager, PACKAGE_MANAGERS);
  const acctWebhookSpec = args.acctWebhook === undefined ? undefined : parseDependencySpec(args.acctWebhook, context.cwd);
  if (args.install) checkPackageManager(packageManager, context.env);
  const target = args.directory === undefined ? undefined : checkedTarget(resolve(context.cwd, args.directory), args.force);

  // Then the questions, for what the flags left open; without them, the defaults.
  const ask = context.interactive;
  const defaultEvents = parseEventList(DEFAULT_EVENTS);
  const chosenTarget = target ?? (ask ? await askTarget(context.cwd, args.force) : checkedTarget(resolve(context.cwd, DEFAULT_PROJECT_NAME), args.force));
  return {
    ...chosenTarget,
    events: events ?? (ask ? await askEvents(defaultEvents) : defaultEvents),
    store: store ?? (ask ? await askStore() : DEFAULT_STORE),
    adapter: adapter ?? (ask ? await askAdapter() : DEFAULT_ADAPTER),
    packageManager,
    acctWebhookSpec: acctWebhookSpec === undefined ? undefined : specForProject(acctWebhookSpec, chosenTarget.directory),
    install: args.install,
    git: args.git,
    force: args.force,
  };
}

interface Target {
  directory: string;
  projectName: string;
}

function checkedTarget(directory: string, force: boolean): Target {
  const projectName = checkProjectName(projectNameFor(directory));
  checkTargetDirectory(directory, force);
  return { directory, projectName };
}

/** Asks for the name; the project goes into a directory of that name (`@scope/name` → `name`). */
async function askTarget(cwd: string, force: boolean): Promise<Target> {
  const directoryFor = (name: string): string => resolve(cwd, name.split('/').pop() ?? name);
  const projectName = await askProjectName((name) => packageNameProblem(name) ?? directoryProblem(directoryFor(name), force));
  return { directory: directoryFor(projectName), projectName };
}

function directoryProblem(directory: string, force: boolean): string | undefined {
  try {
    checkTargetDirectory(directory, force);
    return undefined;
  } catch (error) {
    if (error instanceof ScaffoldError) return error.message;
    throw error;
  }
}
