import { Command } from 'commander';
import { DEFAULT_DATABASE_FILE } from '../../dispatcher/dispatcher-defaults.js';
import type { CommandContext } from '../context.js';
import { examples } from '../help.js';
import { deliveriesCommand } from './deliveries.js';
import { emitCommand } from './emit.js';
import { runCommand } from './run.js';
import { webhooksCommand } from './webhooks.js';

/** `acct-webhook dispatcher …`: the platform's sending side, run from a SQLite file. */
export function dispatcherCommand(context: CommandContext): Command {
  const command = new Command('dispatcher')
    .summary('register webhooks, emit events, run the sender, inspect the delivery log')
    .description(
      'The platform\'s sending side (acct-webhook/dispatcher) on a SQLite file: registrations with their secrets, events, ' +
        'the 7-attempt retry schedule and the delivery log. Several commands may use the same file at once ' +
        '(e.g. "dispatcher run" in one terminal, "dispatcher emit" in another).',
    )
    .option('--db <file>', `the dispatch database (default: ${DEFAULT_DATABASE_FILE})`, DEFAULT_DATABASE_FILE)
    .option('--allow-insecure-urls', 'development: allow plain http:// to localhost, 127.0.0.1 and [::1]')
    .addHelpText(
      'after',
      examples(
        ['acct-webhook dispatcher webhooks add --url http://127.0.0.1:3000/webhooks --events \'invoice.*\' --allow-insecure-urls', 'register a local receiver; prints its secret'],
        ['acct-webhook dispatcher emit invoice.paid --set data.object.amount=5000', 'queue an event for every subscribed webhook'],
        ['acct-webhook dispatcher run --allow-insecure-urls', 'send what is due, retry on schedule, until Ctrl-C'],
        ['acct-webhook dispatcher deliveries list --status retrying', 'what is still being retried'],
      ),
    );
  for (const sub of [webhooksCommand(context), emitCommand(context), runCommand(context), deliveriesCommand(context)]) command.addCommand(sub);
  return command;
}
