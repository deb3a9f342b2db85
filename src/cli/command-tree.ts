import type { Command } from 'commander';

/** The command and every subcommand below it, for settings commander does not pass down to added commands. */
export function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap((child) => allCommands(child))];
}

/** `acct-webhook dispatcher webhooks add`: the words that name a command, for messages. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}
