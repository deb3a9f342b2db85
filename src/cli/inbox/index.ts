import { Command } from 'commander';
import type { InboxEvent, InboxStats, InboxStatus } from '../../ports/inbox.js';
import { INBOX_STATUSES } from '../../ports/inbox.js';
import type { CommandContext } from '../context.js';
import { jsonOption } from '../common-options.js';
import { examples } from '../help.js';
import { isoTime, oneOf, positiveInteger } from '../options.js';
import { renderTable } from '../table.js';
import { tableTime } from '../time-format.js';
import { DEFAULT_STORE_FILE } from '../../stores/sqlite/store-file.js';
import type { Inbox } from '../../receiver/inbox.js';

/** The store and the inbox API are loaded when an inbox command runs, never at the CLI's start. */
async function withInbox<T>(command: Command, work: (inbox: Inbox) => Promise<T>): Promise<T> {
  return (await import('./store.js')).withInbox(command, work);
}

/** A screenful; `--limit` takes more. */
const DEFAULT_LIST_LIMIT = 50;

/** `acct-webhook inbox list|show|retry|purge`: what a receiver in inbox mode stored and did. */
export function inboxCommand(context: CommandContext): Command {
  const command = new Command('inbox')
    .summary("a receiver's inbox (inbox mode): list, show, retry, purge")
    .description(
      'The events a receiver in inbox mode stored before acknowledging them, and what its worker did with them, ' +
        'read from its store: the SQLite file (--db) or PostgreSQL (--pg). A retried event is run by the receiver ' +
        'process that serves the store, within its poll interval.',
    )
    .option('--db <file>', `the receiver's SQLite store (default: ${DEFAULT_STORE_FILE})`, DEFAULT_STORE_FILE)
    .option('--pg <url>', 'a PostgreSQL store instead: postgres://user@host/db')
    .option('--schema <name>', 'the PostgreSQL schema of the store (default: public)')
    .addHelpText(
      'after',
      examples(
        ['acct-webhook inbox list --status dead', 'events whose every run failed'],
        ['acct-webhook inbox retry evt_…', 'run one of them again'],
        ['acct-webhook inbox purge --status done --before 2026-11-01', 'delete finished events received before November'],
      ),
    );
  for (const sub of [listCommand(context), showCommand(context), retryCommand(context), purgeCommand(context)]) command.addCommand(sub);
  return command;
}

const COLUMNS = [
  { header: 'event', value: (event: InboxEvent) => event.event_id },
  { header: 'type', value: (event: InboxEvent) => event.event_type },
  { header: 'status', value: (event: InboxEvent) => event.status + (event.stale ? ' (stale)' : '') },
  { header: 'runs', value: (event: InboxEvent) => String(event.attempts), align: 'right' as const },
  { header: 'received (UTC)', value: (event: InboxEvent) => tableTime(event.received_at) },
  { header: 'next run (UTC)', value: (event: InboxEvent) => tableTime(event.next_attempt_at) },
  { header: 'last error', value: (event: InboxEvent) => (event.last_error ? `${event.last_error.code}: ${event.last_error.message}` : '') },
];

function summary(stats: InboxStats): string {
  const counts = INBOX_STATUSES.map((status) => `${stats[status]} ${status}`).join(', ');
  return stats.oldest_pending_age_ms === null ? counts : `${counts}; the oldest pending event waits for ${Math.round(stats.oldest_pending_age_ms / 1000)} s`;
}

function listCommand(context: CommandContext): Command {
  return new Command('list')
    .summary('events, newest first, with counts by status')
    .option('--status <status>', INBOX_STATUSES.join(', '), oneOf('--status', INBOX_STATUSES))
    .option('--type <type>', 'one event type: invoice.paid')
    .option('--limit <n>', `at most n (default: ${DEFAULT_LIST_LIMIT})`, positiveInteger('--limit', 10_000), DEFAULT_LIST_LIMIT)
    .addOption(jsonOption('print { stats, events } as JSON (payloads as text)'))
    .addHelpText('after', examples(['acct-webhook inbox list --status dead --type invoice.paid', 'the invoice.paid events whose every run failed']))
    .action(async function (this: Command, options: { status?: InboxStatus; type?: string; limit: number; json?: boolean }) {
      if (options.type !== undefined) (await import('../event-types.js')).parseEventType(options.type);
      const { stats, events } = await withInbox(this, async (inbox) => ({
        stats: await inbox.stats(),
        events: await inbox.list({ status: options.status, type: options.type, limit: options.limit }),
      }));
      if (options.json) return context.output.json({ stats, events: events.map(printable) });
      context.output.line(summary(stats));
      if (events.length === 0) return context.output.line('No events match.');
      context.output.raw(renderTable(events, COLUMNS, { boxed: context.output.stdoutIsTTY }));
    });
}

/** An inbox event for JSON output: the payload as text (it is JSON the signature covered). */
function printable(event: InboxEvent) {
  return { ...event, raw_body: event.raw_body.toString('utf8') };
}

function showCommand(context: CommandContext): Command {
  return new Command('show')
    .summary('one event: its state, the headers kept and the payload')
    .argument('<event-id>', 'the event (evt_…)')
    .addOption(jsonOption())
    .addHelpText('after', examples(['acct-webhook inbox show evt_… --db ./data/webhook-events.db', 'why it failed, and its payload']))
    .action(async function (this: Command, eventId: string, options: { json?: boolean }) {
      const event = await withInbox(this, async (inbox) => {
        const found = await inbox.get(eventId);
        if (!found) {
          const { ReceiverError } = await import('../../receiver/errors.js');
          throw new ReceiverError('NOT_FOUND', `No inbox event ${eventId}`, { event_id: eventId });
        }
        return found;
      });
      if (options.json) return context.output.json(printable(event));
      const { output } = context;
      output.line(`${event.event_id}: ${event.event_type}, ${event.status}${event.stale ? ' (stale: a newer event of its object was handled first)' : ''}`);
      output.line(`  ${event.attempts} run(s); received ${tableTime(event.received_at)} UTC; created ${tableTime(event.created)} UTC`);
      if (event.next_attempt_at) output.line(`  next run ${tableTime(event.next_attempt_at)} UTC`);
      if (event.completed_at) output.line(`  done ${tableTime(event.completed_at)} UTC`);
      if (event.last_error) output.line(`  last error ${event.last_error.code}: ${event.last_error.message}`);
      if (event.ordering_key) output.line(`  ordering key ${event.ordering_key}`);
      for (const [name, value] of Object.entries(event.headers)) output.line(`  ${name}: ${value}`);
      output.raw(`${prettyPayload(event.raw_body)}\n`);
    });
}

function prettyPayload(body: Buffer): string {
  try {
    return JSON.stringify(JSON.parse(body.toString('utf8')), null, 2);
  } catch {
    return body.toString('utf8');
  }
}

function retryCommand(context: CommandContext): Command {
  return new Command('retry')
    .summary('run a dead event again (the receiver serving the store runs it)')
    .argument('<event-id>', 'the event (evt_…)')
    .addOption(jsonOption())
    .addHelpText('after', examples(['acct-webhook inbox retry evt_… --pg postgres://postgres@127.0.0.1/app', 'once the bug is fixed, on a PostgreSQL store']))
    .action(async function (this: Command, eventId: string, options: { json?: boolean }) {
      const event = await withInbox(this, (inbox) => inbox.retry(eventId));
      if (options.json) return context.output.json(printable(event));
      context.output.line(`${event.event_id} is pending again; the receiver's worker runs it next.`);
    });
}

function purgeCommand(context: CommandContext): Command {
  return new Command('purge')
    .summary('delete finished events (done or dead)')
    .requiredOption('--status <status>', 'done or dead: pending and running events cannot be purged', oneOf('--status', ['done', 'dead'] as const))
    .option('--before <iso>', 'only events received before this time (default: now)', isoTime('--before'))
    .addOption(jsonOption())
    .addHelpText('after', examples(['acct-webhook inbox purge --status dead --before 2026-10-01', 'forget dead events older than October']))
    .action(async function (this: Command, options: { status: 'done' | 'dead'; before?: number; json?: boolean }) {
      const purged = await withInbox(this, (inbox) => inbox.purge({ status: options.status, ...(options.before === undefined ? {} : { before: options.before }) }));
      if (options.json) return context.output.json({ purged });
      context.output.line(`${purged} ${options.status} event${purged === 1 ? '' : 's'} purged.`);
    });
}
