import { Command } from 'commander';
import type { CommandContext } from './context.js';
import { jsonOption } from './common-options.js';
import { examples } from './help.js';
import { positiveNumber } from './options.js';

/** One minute of the retry schedule takes one second. */
export const DEFAULT_TIME_SCALE = 60;
/**
 * Faster than this, the receiver's 300 s signature window (on the compressed clock) becomes
 * shorter than a request may take on a loaded machine: 2.5 s of real time at 120×.
 */
export const MAX_TIME_SCALE = 120;

/** `acct-webhook demo`: the round trip, receiver and dispatcher, on this machine. */
export function demoCommand(context: CommandContext): Command {
  return new Command('demo')
    .summary('see it work: a dispatcher delivers all 18 event types to a receiver, with retries')
    .description(
      'Starts a receiver (webhookHandler with a SQLite idempotency store) on a free 127.0.0.1 port and a dispatcher on a ' +
        'temporary SQLite file, registers the receiver, and emits one event of each of the 18 types. The handler fails the ' +
        'first attempt of a few on purpose, so the retry schedule shows; one event is sent again by hand, so deduplication ' +
        'shows. Prints the delivery log and a summary; everything is removed afterwards, unless --keep keeps the two SQLite ' +
        'files (the delivery log for replay, the receiver\'s event ids). Needs no server, no secret, no network.',
    )
    .option('--time-scale <factor>', `how much faster the retry schedule runs than real time (default: ${DEFAULT_TIME_SCALE}, a minute takes a second)`, positiveNumber('--time-scale', MAX_TIME_SCALE), DEFAULT_TIME_SCALE)
    .option('--keep [dir]', 'keep the databases, in <dir> (new or empty) or in the temporary directory, and print where')
    .addOption(jsonOption('print the delivery log and the summary as JSON'))
    .addHelpText(
      'after',
      examples(
        ['acct-webhook demo', 'the whole round trip in a few seconds'],
        [`acct-webhook demo --time-scale ${MAX_TIME_SCALE}`, 'even faster'],
        ['acct-webhook demo --keep demo-data', 'keep the delivery log in ./demo-data …'],
        ['acct-webhook replay demo-data/dispatch.db --dry-run', '… and see what replay would send from it'],
      ),
    )
    .action(async (options: { timeScale: number; json?: boolean; keep?: string | true }) => {
      const { runDemo } = await import('./demo/run.js');
      context.setExitCode(
        await runDemo(context, { timeScale: options.timeScale, json: options.json === true, ...(options.keep === undefined ? {} : { keep: options.keep }) }),
      );
    });
}
