import { errorLine } from '../../cli-kit/error-line.js';
import { forEachConcurrently } from '../concurrently.js';
import type { CommandContext } from '../context.js';
import { CliError } from '../errors.js';
import { EXIT_CODES, type ExitCode } from '../exit-codes.js';
import { ProgressBar } from '../progress.js';
import { readDeliveryLog } from './log-source.js';
import type { MalformedLine } from './log-lines.js';
import { Pacer } from './pacer.js';
import { plannedLine, resultLine, summaryLines } from './report.js';
import { selectForReplay, type ReplayFilter, type Selection } from './select.js';
import { replayOne, type ReplayResult, type ReplayTarget } from './send.js';

export interface ReplayPlan {
  file: string;
  filter: ReplayFilter;
  /** Where to (or, with dryRun, where it would go); shown in the summary. */
  to?: string;
  /** Absent only with dryRun. */
  target?: ReplayTarget;
  rate: number;
  concurrency: number;
  dryRun: boolean;
  json: boolean;
}

/**
 * Reads the log, selects, and sends each selected event again — or, with dryRun, only lists
 * them. Exit 1 if any replay failed; otherwise 2 if malformed lines, or events whose payload is no
 * longer kept, were skipped; otherwise 0.
 */
export async function runReplay(context: CommandContext, plan: ReplayPlan, commandName: string): Promise<ExitCode> {
  const reportMalformed = (line: MalformedLine): void => {
    const problem = new CliError('MALFORMED_INPUT', `${plan.file} line ${line.line}: ${line.reason}; skipped`, { file: plan.file, line: line.line });
    context.output.note(errorLine(commandName, problem).trimEnd());
  };
  const selection = await selectForReplay(readDeliveryLog(plan.file), plan.filter, reportMalformed);
  for (const eventId of selection.withoutPayload) {
    const problem = new CliError('PAYLOAD_NOT_KEPT', `${eventId}: payload no longer kept (removed by the dispatcher's retention or an erase); skipped`, { event_id: eventId });
    context.output.note(errorLine(commandName, problem).trimEnd());
  }
  const results = plan.dryRun || plan.target === undefined ? undefined : await send(context, plan, plan.target, selection);
  report(context, plan, selection, results);
  if (results?.some((result) => result.outcome !== 'delivered')) return EXIT_CODES.failure;
  return selection.malformed.length > 0 || selection.withoutPayload.length > 0 ? EXIT_CODES.usage : EXIT_CODES.ok;
}

async function send(context: CommandContext, plan: ReplayPlan, target: ReplayTarget, selection: Selection): Promise<ReplayResult[]> {
  const { output } = context;
  const pacer = new Pacer(plan.rate);
  const progress = plan.json ? undefined : new ProgressBar(output, 'replaying', selection.items.length);
  const results: ReplayResult[] = [];
  try {
    await forEachConcurrently(selection.items, plan.concurrency, async (item) => {
      await pacer.wait();
      const result = await replayOne(target, item);
      results.push(result);
      if (!plan.json) output.line(resultLine(output, result));
      progress?.advance();
    });
  } finally {
    progress?.finish();
  }
  return results;
}

function report(context: CommandContext, plan: ReplayPlan, selection: Selection, results: ReplayResult[] | undefined): void {
  const { output } = context;
  const { to } = plan;
  const counts = results === undefined ? 'dry-run' : { delivered: results.filter((r) => r.outcome === 'delivered').length, failed: results.filter((r) => r.outcome !== 'delivered').length };
  if (plan.json) {
    output.json({
      dryRun: plan.dryRun,
      to: to ?? null,
      ...(results === undefined ? { planned: selection.items.map(({ payload: _payload, ...item }) => item) } : { results: results.map(toJson) }),
      malformed: selection.malformed,
      withoutPayload: selection.withoutPayload,
      summary: { lines: selection.lines, deliveries: selection.deliveries, events: selection.items.length, ...(counts === 'dry-run' ? {} : counts) },
    });
    return;
  }
  if (results === undefined) for (const item of selection.items) output.line(plannedLine(item));
  output.line();
  for (const line of summaryLines(selection, to, counts)) output.line(line);
}

function toJson(result: ReplayResult): Record<string, unknown> {
  const { payload: _payload, ...item } = result.item;
  return { ...item, outcome: result.outcome, status: result.status, ms: result.ms, duplicate: result.duplicate, error: result.error };
}
