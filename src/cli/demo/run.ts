import { Writable } from 'node:stream';
import { DELIVERY_TIMEOUT_MS, DISPATCH_LEASE_MARGIN_MS } from '../../dispatcher/dispatcher-defaults.js';
import { Dispatcher } from '../../platform/node-dispatcher.js';
import type { ExportedAttempt } from '../../dispatcher/records.js';
import { RETRY_SCHEDULE } from '../../dispatcher/schedule.js';
import { EVENT_TYPES, type EventType } from '../../events/catalog.js';
import { catalogSample } from '../../events/sample-event.js';
import { SAMPLE_BUSINESS_ID } from '../../events/samples.js';
import { DEFAULT_HANDLER_TIMEOUT_MS } from '../../receiver/options.js';
import { sqliteStore } from '../../stores/sqlite/idempotency-store.js';
import type { CommandContext } from '../context.js';
import { CliError } from '../errors.js';
import { EXIT_CODES, type ExitCode } from '../exit-codes.js';
import { createLocalReceiver } from '../local-receiver/receiver.js';
import { renderDelivery, type DeliveryView } from '../local-receiver/render.js';
import { listenOn, serverUrl } from '../local-receiver/server.js';
import { flakyHandler, flakyTypes } from './flaky-handler.js';
import { attemptsTable, closingLines, introLines, keptLines, summarize, summaryLines, tableTitle } from './report.js';
import { scaledClock } from './scaled-clock.js';
import { demoWorkdir, finishWorkdir, type DemoWorkdir } from './workdir.js';

export interface DemoOptions {
  timeScale: number;
  json: boolean;
  /** Keep the databases: in this directory (new or empty), or with true in the temporary one. */
  keep?: string | true;
}

const DEMO_HOST = '127.0.0.1';
const DEMO_PATH = '/webhooks';
/** The worker looks for due retries this often (real time), so a compressed schedule is kept. */
const DEMO_POLL_INTERVAL_MS = 25;
/** How long the demo waits for the deliveries besides the retry waits themselves. */
const DEMO_BASE_DEADLINE_MS = 20_000;

/** Things to close when the demo ends, last opened first closed. */
type Cleanup = (() => Promise<void>)[];

/**
 * The demo: receiver and dispatcher in this process on temporary SQLite files, all 18 types
 * delivered, three first attempts failed on purpose and retried, one event sent again to show
 * deduplication; then the log as a table and a summary. Exit 0 when it all worked that way.
 * The files are removed afterwards, unless `keep` says where they stay (for replay).
 */
export async function runDemo(context: CommandContext, options: DemoOptions): Promise<ExitCode> {
  const workdir = await demoWorkdir(options.keep);
  const cleanup: Cleanup = [];
  let interrupted = false;
  const unsubscribe = context.io.stopRequests.onStop(() => (interrupted = true));
  try {
    return await demonstrate(context, options, workdir, cleanup, () => interrupted);
  } catch (error) {
    if (workdir.kept) context.output.note(`The demo's databases are kept in ${workdir.directory}`);
    throw error;
  } finally {
    unsubscribe();
    for (const close of cleanup.reverse()) await close().catch(() => undefined);
    await finishWorkdir(workdir);
  }
}

async function demonstrate(context: CommandContext, options: DemoOptions, workdir: DemoWorkdir, cleanup: Cleanup, interrupted: () => boolean): Promise<ExitCode> {
  const { output } = context;
  const clock = scaledClock(options.timeScale);
  const server = await listenOn(undefined, 0, DEMO_HOST);
  cleanup.push(() => server.close());
  const dispatcher = new Dispatcher({
    database: workdir.dispatchDatabase,
    clock,
    // One attempt at a time: the receiver's lines are printed as it answers, and the log records
    // in the order attempts are made; sent one by one, both list the events in the same order.
    concurrency: 1,
    // The development switch, explicitly: plain http to 127.0.0.1 is refused without it.
    allowInsecureUrls: true,
    // The claim on an attempt in flight is measured on the compressed clock: it must last as
    // long in real time as an attempt may take (the 30 s timeout and the margin), or a slow
    // attempt would be handed to the worker again and sent twice.
    leaseMs: (DELIVERY_TIMEOUT_MS + DISPATCH_LEASE_MARGIN_MS) * options.timeScale,
    logger: false,
    pollIntervalMs: DEMO_POLL_INTERVAL_MS,
  });
  cleanup.push(() => dispatcher.close());
  const url = serverUrl(DEMO_HOST, server.port, DEMO_PATH);
  const webhook = await dispatcher.webhooks.create({ business_id: SAMPLE_BUSINESS_ID, url, events: ['*'] });

  const flaky = flakyTypes();
  const tally = { handled: 0, duplicates: 0 };
  const receiver = createLocalReceiver({
    secret: webhook.secret,
    store: sqliteStore(workdir.eventsDatabase),
    path: DEMO_PATH,
    clock,
    // As for the dispatcher: the claim's lease, on the compressed clock, lasts the real budget.
    handlerTimeoutMs: DEFAULT_HANDLER_TIMEOUT_MS * options.timeScale,
    onEvent: flakyHandler(flaky),
    onDelivery: (delivery) => {
      if (delivery.outcome === 'handled') tally.handled += 1;
      if (delivery.outcome === 'duplicate') tally.duplicates += 1;
      if (!options.json) showDelivery(context, delivery);
    },
  });
  // The dispatcher stops sending before the receiver's store closes under it.
  cleanup.push(async () => {
    await dispatcher.stop();
    await receiver.close();
  });
  server.server.on('request', receiver.listener);

  if (!options.json) for (const line of introLines(output, url, [...flaky], options.timeScale)) output.line(line);
  await dispatcher.start();
  const startedAt = clock();
  for (const type of EVENT_TYPES) await emitSample(dispatcher, type);
  await waitUntilSettled(dispatcher, deadlineMs(options.timeScale), interrupted);
  await sendDuplicate(dispatcher);
  await dispatcher.stop();

  const attempts = await readLog(dispatcher);
  const summary = summarize(attempts, EVENT_TYPES.length, tally.handled, tally.duplicates);
  if (options.json) output.json({ summary, attempts, ...(workdir.kept ? { kept: keptFiles(workdir) } : {}) });
  else {
    output.line();
    output.line(tableTitle(output));
    output.raw(attemptsTable(attempts, startedAt, output.stdoutIsTTY));
    output.line();
    for (const line of [...summaryLines(output, summary), ...closingLines(output, summary)]) output.line(line);
    if (workdir.kept) for (const line of keptLines(output, workdir)) output.line(line);
  }
  if (summary.delivered !== summary.events || summary.duplicatesIgnored === 0) {
    throw new CliError('DEMO_FAILED', 'The demo did not end with every event delivered once and a duplicate ignored', { ...summary });
  }
  return EXIT_CODES.ok;
}

function keptFiles(workdir: DemoWorkdir): Record<string, string> {
  return { directory: workdir.directory, dispatchDatabase: workdir.dispatchDatabase, eventsDatabase: workdir.eventsDatabase };
}

/** Receiver lines without the events' fields: the table shows the rest. */
function showDelivery(context: CommandContext, delivery: DeliveryView): void {
  const { fields: _fields, ...view } = delivery;
  for (const line of renderDelivery(context.output, view)) context.output.line(line);
}

/** The catalog's sample of `type`, emitted the way an application emits: type, object, options. */
function emitSample(dispatcher: Dispatcher, type: EventType): Promise<unknown> {
  const { object, previous_attributes } = catalogSample(type);
  return dispatcher.emit(type, object, { business_id: SAMPLE_BUSINESS_ID, ...(previous_attributes === undefined ? {} : { previous_attributes }) });
}

/** Waits (real time, polling) until no delivery is still retrying. */
async function waitUntilSettled(dispatcher: Dispatcher, deadline: number, interrupted: () => boolean): Promise<void> {
  const until = Date.now() + deadline;
  while ((await dispatcher.deliveries.list({ status: 'retrying', limit: 1 })).length > 0) {
    if (interrupted()) throw new CliError('CANCELLED', 'Stopped before the deliveries were done', {});
    if (Date.now() > until) throw new CliError('DEMO_FAILED', `Deliveries were still being retried after ${Math.round(deadline / 1000)} s`, {});
    await new Promise((resolve) => setTimeout(resolve, DEMO_POLL_INTERVAL_MS));
  }
}

/** The retry waits, compressed, twice over, plus a margin for a slow machine. */
function deadlineMs(timeScale: number): number {
  return DEMO_BASE_DEADLINE_MS + (2 * (RETRY_SCHEDULE[1] ?? 0) * 1000) / timeScale;
}

/** A manual retry of a delivered event: the receiver acknowledges it as a duplicate and runs nothing. */
async function sendDuplicate(dispatcher: Dispatcher): Promise<void> {
  const [delivered] = await dispatcher.deliveries.list({ status: 'delivered', limit: 1 });
  if (delivered !== undefined) await dispatcher.deliveries.retry(delivered.id);
}

async function readLog(dispatcher: Dispatcher): Promise<ExportedAttempt[]> {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  await dispatcher.deliveries.export(sink);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ExportedAttempt);
}
