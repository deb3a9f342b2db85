import { Command } from 'commander';
import type { CommandContext } from './context.js';
import { collect, duration, httpUrl, isoTime, nonEmpty } from './options.js';
import { jsonOption } from './common-options.js';
import { examples } from './help.js';
import { DEFAULT_STORE_FILE } from '../stores/sqlite/store-file.js';
import type { CatchUpCliOptions } from './catch-up/run.js';
import { API_KEY_ENV, BASE_URL_ENV } from './catch-up/env.js';

/** How far back `--since` may reach: the platform keeps events for the delivery log's retention. */
const MAX_SINCE_MS = 90 * 86_400_000;

/** A time back from now (`72h`) or an ISO 8601 time → ms since the epoch. */
function pointInTime(option: string): (value: string) => number {
  const back = duration(option, MAX_SINCE_MS);
  const iso = isoTime(option);
  return (value) => (/^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? iso(value) : Date.now() - back(value));
}

/** `acct-webhook catch-up`: the events the platform has and this receiver missed, caught up or reported. */
export function catchUpCommand(context: CommandContext): Command {
  return new Command('catch-up')
    .summary("read the platform's events feed into a receiver's inbox, or report what it never handled")
    .description(
      "Reads GET /v1/events (oldest first) and runs each event through the receiver's pipeline on its store " +
        '(--db or --pg): schema validation, dedupe by event id, the ordering guard, the quarantine. The events are ' +
        "stored in the store's inbox; the receiver process serving that store (in inbox mode) runs them with its " +
        'handlers. An event handled before is a duplicate and is not stored again. Without --since it resumes where ' +
        'the last catch-up of the same --checkpoint stopped. With --dry-run it changes nothing and prints, by type, ' +
        'the events of the range that the receiver never handled.',
    )
    .option('--since <time>', 'events created at or after: a duration back from now (72h, 7d) or an ISO 8601 time (default: the checkpoint)', pointInTime('--since'))
    .option('--until <time>', 'events created before: a duration back from now or an ISO 8601 time (default: now)', pointInTime('--until'))
    .option('--types <patterns>', 'only these types, comma-separated: invoice.*,payment.failed (default: every type)', collect)
    .option('--api-key <key>', `the platform API key, sk_live_… or sk_test_… (or set ${API_KEY_ENV})`, nonEmpty('--api-key'))
    .option('--base-url <url>', `the API's base URL, before /v1: https://api.example.com (or set ${BASE_URL_ENV})`, httpUrl('--base-url'))
    .option('--db <file>', `the receiver's SQLite store (default: ${DEFAULT_STORE_FILE})`, DEFAULT_STORE_FILE)
    .option('--pg <url>', 'a PostgreSQL store instead: postgres://user@host/db')
    .option('--schema <name>', 'the PostgreSQL schema of the store (default: public)')
    .option('--checkpoint <name>', 'the checkpoint to resume from and move on (default: default)', nonEmpty('--checkpoint'))
    .option('--no-ordering', "store the events without the ordering guard's object keys (for a receiver without ordering: true)")
    .option('--dry-run', 'change nothing: report the events of the range the receiver never handled, by type')
    .addOption(jsonOption('print the summary (or the report) as JSON'))
    .addHelpText(
      'after',
      examples(
        ['acct-webhook catch-up --since 72h --api-key sk_live_… --base-url https://api.example.com --db ./webhook-events.db', 'after a weekend outage: store the missed events in the inbox'],
        ['acct-webhook catch-up --db ./webhook-events.db', 'later (e.g. from cron): resume from the checkpoint (key and URL from the environment)'],
        ['acct-webhook catch-up --dry-run --since 2026-11-20 --until 2026-11-23', 'which events of that range were never handled'],
      ),
    )
    .action(async (options: CatchUpCliOptions) => {
      const { runCatchUp } = await import('./catch-up/run.js');
      await runCatchUp(context, options);
    });
}
