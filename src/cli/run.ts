import { CommanderError, type Command } from 'commander';
import { isInformationExit, usageMessage } from '../cli-kit/commander.js';
import { errorLine } from '../cli-kit/error-line.js';
import type { CommandContext } from './context.js';
import { CliError } from './errors.js';
import { EXIT_CODES, exitCodeFor, type ExitCode } from './exit-codes.js';
import { loadHelpResources } from './help.js';
import type { CliIo, TerminalStream } from './io.js';
import { Output } from './output.js';
import { allCommands, commandPath } from './command-tree.js';
import { COMMAND_NAME, createProgram } from './program.js';

/**
 * Runs `acct-webhook …argv` and resolves with the exit code. Whatever goes wrong ends as one
 * line on stderr — `acct-webhook <command>: <message> [<CODE>]` — and the exit code of that
 * code; the stack trace only with --verbose.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  // Read before parsing, so that even a command line commander refuses honours it.
  const verbose = argv.includes('--verbose');
  let exitCode: ExitCode = EXIT_CODES.ok;
  let current = COMMAND_NAME;
  try {
    const context: CommandContext = {
      io,
      output: new Output(io),
      help: await loadHelpResources(argv),
      userAgent: `${COMMAND_NAME}/${io.version}`,
      setExitCode: (code) => (exitCode = code),
    };
    const program = createProgram(context);
    for (const command of allCommands(program)) configure(command, context, (name) => (current = name));
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return commanderExit(error, current, io, verbose);
    io.stderr.write(errorLine(current, error, { verbose }));
    return exitCodeFor(error);
  }
}

/**
 * Settings of every command: output to the injected streams, errors through our one line, and
 * which command an error names — set before a subcommand parses its options, so that a bad
 * option value names the command it belongs to.
 */
function configure(command: Command, context: CommandContext, onCommand: (path: string) => void): void {
  const { io, output } = context;
  command
    .exitOverride((error) => {
      onCommand(commandPath(command));
      throw error;
    })
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander's own error message is replaced by our one-line error.
      outputError: () => undefined,
      getOutHelpWidth: () => helpWidth(io.stdout),
      getErrHelpWidth: () => helpWidth(io.stderr),
      getOutHasColors: () => output.stdoutHasColors,
      getErrHasColors: () => output.stderrHasColors,
    })
    // Each description states its default in words (`(default: 50)`); commander would add it again.
    .configureHelp({ optionDescription: (option) => option.description })
    .hook('preSubcommand', (_self, subcommand) => onCommand(commandPath(subcommand)))
    .hook('preAction', (_self, action) => onCommand(commandPath(action)));
}

/** Commander's own width for help that is not shown on a terminal. */
const PIPED_HELP_WIDTH = 80;

function helpWidth(stream: TerminalStream): number {
  return stream.isTTY === true && stream.columns !== undefined ? stream.columns : PIPED_HELP_WIDTH;
}

function commanderExit(error: CommanderError, command: string, io: CliIo, verbose: boolean): ExitCode {
  if (isInformationExit(error)) return EXIT_CODES.ok;
  // A command group called without a subcommand: commander has printed its help on stderr.
  if (error.code === 'commander.help') return EXIT_CODES.usage;
  const usage = new CliError('INVALID_ARGUMENTS', usageMessage(error, command), { commanderCode: error.code });
  io.stderr.write(errorLine(command, usage, { verbose }));
  return EXIT_CODES.usage;
}
