import { once } from 'node:events';
import { Command } from 'commander';
import type { DeliveryExportFilter, DeliveryFilter } from '../../dispatcher/delivery-filters.js';
import type { Delivery, DeliveryAttempt, DeliveryStatus } from '../../dispatcher/records.js';
import type { EventPattern } from '../../events/catalog.js';
import type { CommandContext } from '../context.js';
import { jsonOption } from '../common-options.js';
import { DELIVERY_STATUSES } from '../../ports/dispatch-statuses.js';
import { EXIT_CODES } from '../exit-codes.js';
import { examples } from '../help.js';
import { openOutputFile } from '../output-file.js';
import { isoTime, nonEmpty, oneOf, positiveInteger } from '../options.js';
import { renderTable } from '../table.js';
import { tableTime } from '../time-format.js';
import { allowsInsecureUrls, withDispatcher } from './shared.js';

interface FilterOptions {
  status?: DeliveryStatus;
  type?: string;
  webhook?: string;
  since?: number;
  until?: number;
}

/** A screenful; `--limit` takes more (the dispatcher allows up to 1000 a page). */
const DEFAULT_LIST_LIMIT = 50;

/** `dispatcher deliveries list|show|retry|export|erase` */
export function deliveriesCommand(context: CommandContext): Command {
  const command = new Command('deliveries')
    .summary('the delivery log: list, show, retry, export, erase')
    .addHelpText('after', examples(['acct-webhook dispatcher deliveries list --status finally_failed', 'what never arrived'], ['acct-webhook dispatcher deliveries export -o deliveries.jsonl', 'the whole log, for replay']));
  command.addCommand(listCommand(context));
  command.addCommand(showCommand(context));
  command.addCommand(retryCommand(context));
  command.addCommand(exportCommand(context));
  command.addCommand(eraseCommand(context));
  return command;
}

/** `timeMeaning` says what --since and --until bound: the delivery's creation (list) or the attempt's time (export). */
function withFilterOptions(command: Command, timeMeaning: string): Command {
  return command
    .option('--status <status>', DELIVERY_STATUSES.join(', '), oneOf('--status', DELIVERY_STATUSES))
    .option('--type <pattern>', 'an event type or a group: invoice.paid, invoice.*')
    .option('--webhook <id>', 'one webhook (wh_…)')
    .option('--since <iso>', `${timeMeaning} at or after this time`, isoTime('--since'))
    .option('--until <iso>', `${timeMeaning} before this time`, isoTime('--until'));
}

/** The filter of the flags common to list and export. */
async function filterFrom(options: FilterOptions): Promise<DeliveryFilter> {
  const { parseEventPattern } = await import('../event-types.js');
  const type = options.type?.trim();
  if (type !== undefined) parseEventPattern(type); // UNKNOWN_EVENT_TYPE with the known types, as everywhere in the CLI
  return {
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(type === undefined ? {} : { event_type: type as EventPattern }),
    ...(options.webhook === undefined ? {} : { webhook_id: options.webhook }),
  };
}

/** list: --since/--until bound the delivery's creation. */
async function listFilterFrom(options: FilterOptions): Promise<DeliveryFilter> {
  return {
    ...(await filterFrom(options)),
    ...(options.since === undefined ? {} : { created_after: options.since }),
    ...(options.until === undefined ? {} : { created_before: options.until }),
  };
}

/** export: --since/--until bound the attempt's time. */
async function exportFilterFrom(options: FilterOptions): Promise<DeliveryExportFilter> {
  return {
    ...(await filterFrom(options)),
    ...(options.since === undefined ? {} : { attempted_after: options.since }),
    ...(options.until === undefined ? {} : { attempted_before: options.until }),
  };
}

function listCommand(context: CommandContext): Command {
  return withFilterOptions(new Command('list').summary('deliveries, newest first'), 'deliveries created')
    .option('--limit <n>', `at most n (default: ${DEFAULT_LIST_LIMIT})`, positiveInteger('--limit', Number.MAX_SAFE_INTEGER), DEFAULT_LIST_LIMIT)
    .addOption(jsonOption())
    .addHelpText('after', examples(['acct-webhook dispatcher deliveries list --status finally_failed --since 2026-11-01', 'what never arrived this month']))
    .action(async function (this: Command, options: FilterOptions & { limit: number; json?: boolean }) {
      const filter = await listFilterFrom(options);
      const deliveries = await withDispatcher(this, {}, (dispatcher) => dispatcher.deliveries.list({ ...filter, limit: options.limit }));
      if (options.json) return context.output.json(deliveries);
      if (deliveries.length === 0) return context.output.line('No deliveries match.');
      context.output.raw(renderTable(deliveries, DELIVERY_COLUMNS, { boxed: context.output.stdoutIsTTY }));
    });
}

const DELIVERY_COLUMNS = [
  { header: 'delivery', value: (delivery: Delivery) => delivery.id },
  { header: 'event type', value: (delivery: Delivery) => delivery.event_type },
  { header: 'event', value: (delivery: Delivery) => delivery.event_id },
  { header: 'webhook', value: (delivery: Delivery) => delivery.webhook_id },
  { header: 'status', value: (delivery: Delivery) => delivery.status },
  { header: 'attempts', value: (delivery: Delivery) => String(delivery.attempt_count), align: 'right' as const },
  { header: 'next attempt (UTC)', value: (delivery: Delivery) => tableTime(delivery.next_attempt_at) },
  { header: 'created (UTC)', value: (delivery: Delivery) => tableTime(delivery.created_at) },
];

const ATTEMPT_COLUMNS = [
  { header: '#', value: (attempt: DeliveryAttempt) => String(attempt.attempt_number), align: 'right' as const },
  { header: 'time (UTC)', value: (attempt: DeliveryAttempt) => tableTime(attempt.attempted_at) },
  { header: 'status', value: (attempt: DeliveryAttempt) => (attempt.response_status === null ? '-' : String(attempt.response_status)), align: 'right' as const },
  { header: 'ms', value: (attempt: DeliveryAttempt) => String(attempt.response_time_ms), align: 'right' as const },
  { header: 'result', value: (attempt: DeliveryAttempt) => attempt.error_kind ?? 'delivered' },
  { header: 'kind', value: (attempt: DeliveryAttempt) => [attempt.manual ? 'manual' : '', attempt.test ? 'test' : ''].filter(Boolean).join(',') || '-' },
  { header: 'answer', value: (attempt: DeliveryAttempt) => attempt.error_message ?? attempt.response_body ?? '' },
];

function showCommand(context: CommandContext): Command {
  return new Command('show')
    .summary('one delivery with all its attempts')
    .argument('<id>', 'the delivery (dlv_…)')
    .addOption(jsonOption('print it with every attempt, payloads included, as JSON'))
    .addHelpText('after', examples(['acct-webhook dispatcher deliveries show dlv_…', 'every attempt: time, status, answer']))
    .action(async function (this: Command, id: string, options: { json?: boolean }) {
      const delivery = await withDispatcher(this, {}, (dispatcher) => dispatcher.deliveries.get(id));
      if (options.json) return context.output.json(delivery);
      const { output } = context;
      output.line(`${delivery.id}: ${delivery.event_type} ${delivery.event_id} → ${delivery.webhook_id}`);
      output.line(`  status ${delivery.status}; ${delivery.attempt_count} attempts (${delivery.automatic_attempt_count} on the schedule); next attempt ${tableTime(delivery.next_attempt_at)}`);
      output.line(`  correlation id ${delivery.correlation_id}; created ${tableTime(delivery.created_at)} UTC`);
      if (delivery.attempts.length > 0) output.raw(renderTable(delivery.attempts, ATTEMPT_COLUMNS, { boxed: output.stdoutIsTTY }));
    });
}

function retryCommand(context: CommandContext): Command {
  return new Command('retry')
    .summary('one manual attempt now (exit 1 if it fails)')
    .description('Makes one attempt now, in any state. Success marks the delivery delivered; a failure leaves its schedule as it was. At most 50 per 15 minutes.')
    .argument('<id>', 'the delivery (dlv_…)')
    .addOption(jsonOption())
    .addHelpText('after', examples(['acct-webhook dispatcher deliveries retry dlv_… --allow-insecure-urls', 'once more, now, to a local receiver']))
    .action(async function (this: Command, id: string, options: { json?: boolean }) {
      const allowInsecureUrls = allowsInsecureUrls(this);
      const { checkRetryTarget } = await import('./insecure-urls.js');
      const { delivery, attempt } = await withDispatcher(this, {}, async (dispatcher) => {
        // Before the attempt: a refused URL would be recorded as a failed (ssrf) attempt.
        await checkRetryTarget(dispatcher, id, allowInsecureUrls);
        return dispatcher.deliveries.retry(id);
      });
      if (options.json) context.output.json({ delivery, attempt });
      else {
        const status = attempt.response_status === null ? 'no answer' : String(attempt.response_status);
        context.output.line(`Attempt ${attempt.attempt_number} (manual): ${status} in ${attempt.response_time_ms} ms → ${delivery.status}`);
        if (attempt.error_message !== null) context.output.line(`  ${attempt.error_message}`);
      }
      if (attempt.error_kind !== null) context.setExitCode(EXIT_CODES.failure);
    });
}

function exportCommand(context: CommandContext): Command {
  return withFilterOptions(new Command('export').summary('the log as JSON Lines, one attempt a line (what replay reads)'), 'only attempts made')
    .option('-o, --out <file>', 'write to this file (default: stdout)')
    .addHelpText('after', examples(['acct-webhook dispatcher deliveries export --status finally_failed -o failed.jsonl', 'the attempts of every delivery that finally failed']))
    .action(async function (this: Command, options: FilterOptions & { out?: string }) {
      const filter = await exportFilterFrom(options);
      const out = options.out === undefined ? context.output.stdoutStream : await openOutputFile(options.out);
      const lines = await withDispatcher(this, {}, (dispatcher) => dispatcher.deliveries.export(out, filter));
      if (options.out !== undefined) {
        out.end();
        await once(out, 'finish');
        context.output.note(`${lines} attempt${lines === 1 ? '' : 's'} written to ${options.out}`);
      }
    });
}

function eraseCommand(context: CommandContext): Command {
  return new Command('erase')
    .summary("remove every stored payload of one business (its events' payloads, the answers to them)")
    .description(
      "Replaces the payloads of the business's events and the response bodies of their attempts by the marker \"payload no longer kept\"; the metadata stays. Deliveries of it still retrying are ended (finally_failed). Logged with the counts, never a payload.",
    )
    .requiredOption('--business <id>', 'the business_id (biz_…) whose payloads go', nonEmpty('--business'))
    .addOption(jsonOption())
    .addHelpText('after', examples(['acct-webhook dispatcher deliveries erase --business biz_4mVt9QeZxK2hRw7L', 'a data-erasure request']))
    .action(async function (this: Command, options: { business: string; json?: boolean }) {
      const erased = await withDispatcher(this, {}, (dispatcher) => dispatcher.eraseBusiness(options.business));
      if (options.json) context.output.json({ business_id: options.business, ...erased });
      else {
        context.output.line(
          `Erased the payloads of ${options.business}: ${erased.events} event${erased.events === 1 ? '' : 's'}, ${erased.attempts} response bod${erased.attempts === 1 ? 'y' : 'ies'}; ${erased.deliveriesEnded} deliver${erased.deliveriesEnded === 1 ? 'y' : 'ies'} still retrying ended`,
        );
      }
    });
}
