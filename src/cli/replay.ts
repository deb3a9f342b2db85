import { Command } from 'commander';
import type { DeliveryStatus } from '../dispatcher/records.js';
import type { CommandContext } from './context.js';
import { jsonOption, secretOption } from './common-options.js';
import { DELIVERY_STATUSES } from '../ports/dispatch-statuses.js';
import { examples } from './help.js';
import { httpUrl, isoTime, oneOf, positiveInteger, positiveNumber, requireOption, requireSecret } from './options.js';
import { commandPath } from './command-tree.js';

interface ReplayOptions {
  to?: string;
  secret?: string;
  type?: string;
  status?: DeliveryStatus;
  since?: number;
  until?: number;
  rate: number;
  concurrency: number;
  dryRun?: boolean;
  json?: boolean;
}

/** Requests per second: gentle enough for a receiver in production. */
export const DEFAULT_REPLAY_RATE = 50;
/** One at a time keeps the original order exactly. */
export const DEFAULT_REPLAY_CONCURRENCY = 1;
const MAX_REPLAY_RATE = 10_000;
const MAX_REPLAY_CONCURRENCY = 64;

/** `acct-webhook replay`: sends events of a delivery log again, re-signed. */
export function replayCommand(context: CommandContext): Command {
  return new Command('replay')
    .summary('send events from a delivery log again, re-signed')
    .description(
      "Reads a delivery log — the dispatcher's JSON Lines export (one attempt a line) or a dispatcher's SQLite file — " +
        'selects deliveries by type, status and time, and sends each selected event once more: the exact original bytes, ' +
        'a fresh x-svc-timestamp and a signature made with --secret (the old ones expire after 300 s), and the header ' +
        'x-acct-webhook-replay-of: <delivery id>. An event sent to several webhooks is replayed once. In the original order ' +
        '(with --concurrency above 1 they start in order and may finish out of it). Prints a line per event (original status → ' +
        'new status, latency) and a summary. Malformed lines are reported with their number and skipped. ' +
        'Exit 1 if any replay failed, else 2 if lines were skipped, else 0.',
    )
    .argument('<log>', 'a JSON Lines export (deliveries.jsonl) or a dispatch database (webhook-dispatch.db)')
    .option('--to <url>', 'the receiver to send to (required unless --dry-run)', httpUrl('--to'))
    .addOption(secretOption('the secret to sign with: the receiver\'s whsec_… secret (required unless --dry-run)'))
    .option('--type <pattern>', 'only these event types: invoice.paid, invoice.*, *')
    .option('--status <status>', `only deliveries in this state: ${DELIVERY_STATUSES.join(', ')}`, oneOf('--status', DELIVERY_STATUSES))
    .option('--since <iso>', 'only deliveries with an attempt at or after this time', isoTime('--since'))
    .option('--until <iso>', 'only deliveries with an attempt before this time', isoTime('--until'))
    .option('--rate <n>', `at most n requests a second (default: ${DEFAULT_REPLAY_RATE})`, positiveNumber('--rate', MAX_REPLAY_RATE), DEFAULT_REPLAY_RATE)
    .option('--concurrency <n>', `requests in flight at once (default: ${DEFAULT_REPLAY_CONCURRENCY})`, positiveInteger('--concurrency', MAX_REPLAY_CONCURRENCY), DEFAULT_REPLAY_CONCURRENCY)
    .option('--dry-run', 'list what would be sent, send nothing')
    .addOption(jsonOption('print the results and the summary as JSON'))
    .addHelpText(
      'after',
      examples(
        ['acct-webhook replay deliveries.jsonl --to http://127.0.0.1:3000/webhooks --secret whsec_… --status finally_failed', 'everything that finally failed'],
        ["acct-webhook replay webhook-dispatch.db --type 'invoice.*' --since 2026-11-22T00:00:00Z --dry-run", 'what would go, from a dispatch database'],
        ['acct-webhook dispatcher deliveries export --status finally_failed > failed.jsonl', 'make a log to replay'],
      ),
    )
    .action(async function (this: Command, log: string, options: ReplayOptions) {
      const dryRun = options.dryRun === true;
      const to = dryRun ? options.to : requireOption(options.to, '--to', 'to send (or use --dry-run)');
      const secret = dryRun ? undefined : requireSecret(options.secret, context.io.env);
      const { parseEventPattern } = await import('./event-types.js');
      const { runReplay } = await import('./replay/run.js');
      const filter = {
        ...(options.type === undefined ? {} : { types: new Set<string>(parseEventPattern(options.type)) }),
        ...(options.status === undefined ? {} : { status: options.status }),
        ...(options.since === undefined ? {} : { since: options.since }),
        ...(options.until === undefined ? {} : { until: options.until }),
      };
      const target = to !== undefined && secret !== undefined ? { url: to, secret, userAgent: context.userAgent } : undefined;
      const plan = { file: log, filter, ...(to === undefined ? {} : { to }), rate: options.rate, concurrency: options.concurrency, dryRun, json: options.json === true, ...(target ? { target } : {}) };
      context.setExitCode(await runReplay(context, plan, commandPath(this)));
    });
}
