import { EXIT_CODES } from '../../cli-kit/exit-codes.js';
import { createClient } from '../../client/client.js';
import { isEventPattern, type EventPattern } from '../../events/event-types.js';
import { NODE_PLATFORM } from '../../platform/node.js';
import type { CatchUpSummary, ReconcileReport } from '../../receiver/catch-up-summary.js';
import { resolveReceiverOptions } from '../../receiver/options.js';
import { buildReceiver } from '../../receiver/receive.js';
import type { CommandContext } from '../context.js';
import { CliError } from '../errors.js';
import { openReceiverStore } from '../inbox/store.js';
import { API_KEY_ENV, BASE_URL_ENV } from './env.js';

/** The options of `acct-webhook catch-up` as commander gives them. */
export interface CatchUpCliOptions {
  since?: number;
  until?: number;
  types?: string[];
  apiKey?: string;
  baseUrl?: string;
  db: string;
  pg?: string;
  schema?: string;
  checkpoint?: string;
  ordering: boolean;
  dryRun?: boolean;
  json?: boolean;
}

/**
 * The receiver the CLI catches up with never verifies a signature (feed events have none) and
 * runs no handler: it stores events in the inbox for the receiver process that serves the store.
 * Its options still need a secret; this one is never used.
 */
const UNUSED_SECRET = 'whsec_catch-up-verifies-no-signature';

export async function runCatchUp(context: CommandContext, options: CatchUpCliOptions): Promise<void> {
  const apiKey = options.apiKey ?? context.io.env[API_KEY_ENV];
  if (apiKey === undefined || apiKey === '') throw new CliError('INVALID_OPTION', `No API key: pass --api-key sk_… or set ${API_KEY_ENV}`, { option: '--api-key' });
  const baseUrl = options.baseUrl ?? context.io.env[BASE_URL_ENV];
  if (baseUrl === undefined || baseUrl === '') throw new CliError('INVALID_OPTION', `No API address: pass --base-url https://… or set ${BASE_URL_ENV}`, { option: '--base-url' });
  const types = options.types === undefined ? undefined : parseTypes(options.types);
  const client = createClient({ apiKey, baseUrl });
  const store = await openReceiverStore(options);
  const receiver = buildReceiver({
    ...resolveReceiverOptions({ secret: UNUSED_SECRET, store, inbox: true, ordering: options.ordering, logger: false }, 'catch-up', NODE_PLATFORM),
    inboxWorker: false,
  });
  const range = {
    client,
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.until === undefined ? {} : { until: options.until }),
    ...(types === undefined ? {} : { types }),
  };
  try {
    if (options.dryRun) {
      const report = await receiver.reconcile(range);
      if (options.json) context.output.json(report);
      else printReport(context, report);
      if (report.unhandled > 0) context.setExitCode(EXIT_CODES.failure);
      return;
    }
    const summary = await receiver.catchUp({ ...range, ...(options.checkpoint === undefined ? {} : { checkpoint: options.checkpoint }) });
    if (options.json) context.output.json(summary);
    else printSummary(context, summary);
    if (summary.failed > 0) context.setExitCode(EXIT_CODES.failure);
  } finally {
    await receiver.close();
    await store.close();
  }
}

function parseTypes(values: readonly string[]): EventPattern[] {
  const patterns = values.flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '');
  for (const pattern of patterns) {
    if (!isEventPattern(pattern)) throw new CliError('UNKNOWN_EVENT_TYPE', `"${pattern}" is not an event type, a group such as invoice.* or *`, { option: '--types', value: pattern });
  }
  return patterns as EventPattern[];
}

function printSummary(context: CommandContext, summary: CatchUpSummary): void {
  const from = summary.startedFrom === 'checkpoint' ? 'from the checkpoint' : 'from --since';
  context.output.line(`Read ${summary.read} events ${from}: ${summary.handled} stored in the inbox, ${summary.duplicates} handled before, ${summary.quarantined} quarantined, ${summary.failed} failed.`);
  if (summary.stale > 0 || summary.inProgress > 0) context.output.line(`${summary.stale} stale, ${summary.inProgress} being handled by a webhook right now.`);
  if (summary.heldBy) context.output.line(`The checkpoint waits at ${summary.heldBy.eventId} (${summary.heldBy.type}, ${summary.heldBy.outcome}): the next catch-up reads from there.`);
  if (summary.checkpoint?.last_event_id) context.output.line(`Checkpoint "${summary.checkpoint.name}": after ${summary.checkpoint.last_event_id} (${new Date(summary.checkpoint.last_event_created ?? 0).toISOString()}).`);
}

function printReport(context: CommandContext, report: ReconcileReport): void {
  const range = `${report.since ?? 'the start of the feed'} to ${report.until ?? 'now'}`;
  context.output.line(`${report.read} events from ${range}: ${report.handled} handled, ${report.unhandled} not.`);
  for (const [type, events] of Object.entries(report.byType).sort(([a], [b]) => a.localeCompare(b))) {
    context.output.line(`${type}: ${events.length}`);
    for (const event of events) context.output.line(`  ${event.id}  ${event.created}  ${event.state}`);
  }
}
