import { Command } from 'commander';
import type { CommandContext } from './context.js';
import { jsonOption, secretOption } from './common-options.js';
import { CliError } from './errors.js';
import { eventTypesHelp, examples } from './help.js';
import { collect, httpUrl, positiveInteger, requireSecret } from './options.js';
import type { TriggerOptions } from './trigger/run.js';

/** More than this is a load test; there are tools for that (see bench/). */
export const MAX_TRIGGER_COUNT = 10_000;

/** `acct-webhook trigger`: a signed, realistic sample (or your own body) to a receiver. */
export function triggerCommand(context: CommandContext): Command {
  return new Command('trigger')
    .summary('send a signed sample event (or your own body) to a receiver')
    .description(
      'Sends a realistic sample of any event type from the event catalog — Austrian sample data, a fresh evt_test_… id ' +
        "and timestamp each time (--id fixes the id) — signed like the platform, and prints the receiver's status, the time " +
        'it took and its answer. A group such as invoice.* (or *) sends one sample of each of its types. Exit 1 unless every ' +
        'answer is 2xx.',
    )
    .argument('[type]', 'the event type to send, a group such as invoice.*, or * (omit it with --file)')
    .requiredOption('--url <url>', 'where the receiver listens, e.g. http://127.0.0.1:3000/webhooks', httpUrl('--url'))
    .addOption(secretOption())
    .option('--set <path=value>', 'change a field of the sample, e.g. data.object.amount=5000 (repeatable; JSON values)', collect)
    .option('--id <event id>', 'the event id of the sample (default: a fresh evt_test_… each time); the same id again is a duplicate')
    .option('-f, --file <path>', 'send this body byte for byte instead of a sample (signed all the same)')
    .option('-n, --count <n>', 'how many of each type to send, one after the other (default: 1)', positiveInteger('--count', MAX_TRIGGER_COUNT), 1)
    .addOption(jsonOption('print the answers as JSON'))
    .addHelpText('after', () =>
      examples(
        ['acct-webhook trigger invoice.paid --url http://127.0.0.1:3000/webhooks --secret whsec_…', 'one invoice.paid'],
        ['acct-webhook trigger payment.failed --url … --set data.object.amount=5000 --set data.object.failure.code=expired_card', 'change fields'],
        ['acct-webhook trigger invoice.paid --url … --id evt_same --count 2', 'the same event id twice: the second answer says "duplicate": true'],
        ["acct-webhook trigger 'invoice.*' --url …", 'one sample of each invoice event'],
        ['acct-webhook trigger --file my-event.json --url …', 'your own body'],
      ) + eventTypesHelp(context.help),
    )
    .action(async (type: string | undefined, options: TriggerOptions) => {
      const secret = requireSecret(options.secret, context.io.env);
      checkBodySource(type, options);
      const { runTrigger } = await import('./trigger/run.js');
      context.setExitCode(await runTrigger(context, type, { ...options, secret }));
    });
}

function checkBodySource(type: string | undefined, options: TriggerOptions): void {
  if (type !== undefined && options.file !== undefined) {
    throw new CliError('INVALID_OPTION', 'Give an event type or --file, not both', { option: '--file' });
  }
  if (type === undefined && options.file === undefined) {
    throw new CliError('INVALID_OPTION', 'Name the event type to send (e.g. invoice.paid), or give --file', { option: 'type' });
  }
  if (options.file !== undefined && (options.set ?? []).length > 0) {
    throw new CliError('INVALID_OPTION', '--set changes a sample; edit the file given with --file instead', { option: '--set' });
  }
  if (options.file !== undefined && options.id !== undefined) {
    throw new CliError('INVALID_OPTION', '--id names the id of a sample; the file given with --file is sent as it is', { option: '--id' });
  }
  if (options.id?.trim() === '') throw new CliError('INVALID_OPTION', '--id must not be empty', { option: '--id' });
}
