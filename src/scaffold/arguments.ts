import { Command, CommanderError } from 'commander';
import { isInformationExit, usageMessage } from '../cli-kit/commander.js';
import { ADAPTERS, PACKAGE_MANAGERS, STORES, choiceNames } from './choices.js';
import { DEFAULT_ADAPTER, DEFAULT_EVENTS, DEFAULT_PACKAGE_MANAGER, DEFAULT_STORE } from './project-defaults.js';
import { ScaffoldError } from './errors.js';

export const COMMAND_NAME = 'create-acct-webhook';

/** The command line as given: values are still unchecked strings; absent ones are undefined. */
export interface CliArguments {
  directory: string | undefined;
  events: string | undefined;
  store: string | undefined;
  adapter: string | undefined;
  packageManager: string | undefined;
  /** `--acct-webhook <spec>`: the acct-webhook dependency to write instead of `^<version>`. */
  acctWebhook: string | undefined;
  install: boolean;
  git: boolean;
  force: boolean;
  yes: boolean;
}

/** `--help` or `--version` was asked for: the text to print, and nothing else to do. */
export interface InformationRequest {
  output: string;
}

interface ParsedFlags {
  events?: string;
  store?: string;
  adapter?: string;
  packageManager?: string;
  acctWebhook?: string;
  install: boolean;
  git: boolean;
  force?: boolean;
  yes?: boolean;
}

function createProgram(version: string, output: { text: string }): Command {
  const list = (choices: object) => choiceNames(choices).join('|');
  return new Command(COMMAND_NAME)
    .description('Generate a ready receiver project for the accounting platform\'s webhooks.')
    .version(version, '-v, --version')
    .argument('[dir]', 'where to create the project; its name becomes the package name')
    .option('--events <list>', `event types or groups to handle, comma-separated, e.g. invoice.paid,customer.* (default: ${DEFAULT_EVENTS})`)
    .option('--store <store>', `where handled event ids are remembered: ${list(STORES)} (default: ${DEFAULT_STORE})`)
    .option('--adapter <adapter>', `how the receiver is served: ${list(ADAPTERS)} (default: ${DEFAULT_ADAPTER})`)
    .option('--package-manager <pm>', `${list(PACKAGE_MANAGERS)} (default: the one running this command, else ${DEFAULT_PACKAGE_MANAGER})`)
    .option(
      '--acct-webhook <spec>',
      'the acct-webhook dependency to write, any npm spec, e.g. file:../acct-webhook-1.0.0.tgz from npm pack (a local path is taken from the current directory) (default: ^ this version)',
    )
    .option('--no-install', 'do not install dependencies')
    .option('--no-git', 'do not initialise a git repository')
    .option('--force', 'write into a directory that is not empty (files of the same name are overwritten)')
    .option('-y, --yes', 'ask nothing: defaults for everything the flags do not say')
    .exitOverride()
    .configureOutput({
      // Help and version text are collected and printed by the caller; errors become ScaffoldErrors.
      writeOut: (text) => (output.text += text),
      writeErr: () => undefined,
      outputError: () => undefined,
    });
}

/**
 * Parses the arguments after the command name. Returns the text for `--help`/`--version`,
 * and throws INVALID_ARGUMENTS for an unknown flag, a missing value or an extra argument.
 */
export function parseArguments(argv: readonly string[], version: string): CliArguments | InformationRequest {
  const output = { text: '' };
  const program = createProgram(version, output);
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (isInformationExit(error)) return { output: output.text };
    throw new ScaffoldError('INVALID_ARGUMENTS', usageMessage(error, COMMAND_NAME), {
      commanderCode: error.code,
    });
  }
  const flags = program.opts<ParsedFlags>();
  return {
    directory: program.args[0],
    events: flags.events,
    store: flags.store,
    adapter: flags.adapter,
    packageManager: flags.packageManager,
    acctWebhook: flags.acctWebhook,
    install: flags.install,
    git: flags.git,
    force: flags.force === true,
    yes: flags.yes === true,
  };
}
