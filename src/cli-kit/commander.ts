import type { CommanderError } from 'commander';

/** Commander stops with these codes after printing help or the version: a success. */
const INFORMATION_CODES: ReadonlySet<string> = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/** Whether commander stopped because it printed help or the version (exit code 0). */
export function isInformationExit(error: CommanderError): boolean {
  return INFORMATION_CODES.has(error.code) && error.exitCode === 0;
}

/**
 * Commander's complaint about the command line (an unknown option, a missing argument …) as one
 * sentence that points to the help: `unknown option '--x' (see acct-webhook sign --help)`.
 */
export function usageMessage(error: CommanderError, commandPath: string): string {
  return `${error.message.replace(/^error: /, '')} (see ${commandPath} --help)`;
}
