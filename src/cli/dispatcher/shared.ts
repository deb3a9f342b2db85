import type { Command } from 'commander';
import type { Dispatcher } from '../../platform/node-dispatcher.js';
import type { OpenDispatcherOptions } from '../dispatch-database.js';

/** The options of `dispatcher` itself, given before or after the subcommand. */
export interface DispatcherGroupOptions {
  db: string;
  allowInsecureUrls?: boolean;
}

/** How a command opens the dispatcher; `--allow-insecure-urls` comes from the group's options. */
export type OpenOptions = Omit<OpenDispatcherOptions, 'allowInsecureUrls'>;

/** Whether `--allow-insecure-urls` was given (before or after the subcommand). */
export function allowsInsecureUrls(command: Command): boolean {
  return command.optsWithGlobals<DispatcherGroupOptions>().allowInsecureUrls === true;
}

/** The dispatcher on the file `--db` names, with the group's options. */
export async function openFromCommand(command: Command, options: OpenOptions = {}): Promise<Dispatcher> {
  const group = command.optsWithGlobals<DispatcherGroupOptions>();
  const { openDispatcher } = await import('../dispatch-database.js');
  return openDispatcher(group.db, { ...options, allowInsecureUrls: allowsInsecureUrls(command) });
}

/** Runs `work` with the dispatcher and always closes it. */
export async function withDispatcher<T>(command: Command, options: OpenOptions, work: (dispatcher: Dispatcher) => Promise<T>): Promise<T> {
  const dispatcher = await openFromCommand(command, options);
  try {
    return await work(dispatcher);
  } finally {
    await dispatcher.close();
  }
}
