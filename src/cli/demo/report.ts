import type { ExportedAttempt } from '../../dispatcher/records.js';
import type { Output } from '../output.js';
import { shellQuote } from '../shell-quote.js';
import type { DemoWorkdir } from './workdir.js';
import { renderTable, type Column } from '../table.js';

export interface DemoSummary {
  events: number;
  /** Deliveries that ended delivered. */
  delivered: number;
  /** Deliveries that needed more than one attempt of the schedule. */
  retried: number;
  /** Deliveries that ended finally_failed. */
  failed: number;
  /** Deliveries the receiver acknowledged as already handled, without running the handler. */
  duplicatesIgnored: number;
  /** Times the handler ran to completion: once per event when deduplication works. */
  handled: number;
  attempts: number;
}

export function introLines(output: Output, url: string, flaky: readonly string[], timeScale: number): string[] {
  const b = (text: string) => output.style('bold', text);
  return [
    b('acct-webhook demo: the platform\'s webhooks, both sides, on this machine.'),
    '',
    `  Receiver    ${url} — webhookHandler verifies each signature, dedupes by event id (SQLite) and runs a handler.`,
    '  Dispatcher  the platform\'s sending side (SQLite delivery log) — registered the receiver and got its whsec_… secret.',
    `  Events      one of each of the 18 types; the handler fails the first attempt of ${flaky.join(', ')} on purpose.`,
    `  Time        runs ${timeScale}× faster: the schedule's 1-minute wait before a retry takes ${formatSeconds(60 / timeScale)}.`,
    '',
    b('What the receiver saw:'),
  ];
}

export function tableTitle(output: Output): string {
  return output.style('bold', 'The delivery log (the dispatcher\'s view, one row per attempt; "at" is schedule time):');
}

/**
 * The delivery log as a table, in the log's order: the order the attempts were made, which is
 * the order the receiver's lines above were printed in (the demo sends one at a time). `at`
 * counts schedule time from the first emit.
 */
export function attemptsTable(attempts: readonly ExportedAttempt[], startedAt: number, boxed: boolean): string {
  const columns: Column<ExportedAttempt>[] = [
    { header: 'at', value: (attempt) => offset(Date.parse(attempt.attempted_at) - startedAt), align: 'right' },
    { header: 'event type', value: (attempt) => attempt.event_type },
    { header: 'event id', value: (attempt) => attempt.event_id },
    { header: 'attempt', value: (attempt) => `${attempt.attempt_number}${attempt.manual ? ' manual' : ''}`, align: 'right' },
    { header: 'status', value: (attempt) => (attempt.response_status === null ? '-' : String(attempt.response_status)), align: 'right' },
    { header: 'ms', value: (attempt) => String(attempt.response_time_ms), align: 'right' },
    { header: 'result', value: resultOf },
  ];
  return renderTable(attempts, columns, { boxed });
}

export function summaryLines(output: Output, summary: DemoSummary): string[] {
  const b = (text: string) => output.style('bold', text);
  return [
    `${b('Summary:')} ${summary.delivered} of ${summary.events} events delivered, ${summary.retried} retried, ${summary.failed} failed, ` +
      `${plural(summary.duplicatesIgnored, 'duplicate')} ignored (${plural(summary.attempts, 'attempt')}; the handler completed ${plural(summary.handled, 'time')}).`,
  ];
}

export function closingLines(output: Output, summary: DemoSummary): string[] {
  return [
    '',
    output.style('bold', 'What happened:'),
    '  - Every request was signed (x-svc-signature over "timestamp.body") and verified before anything ran.',
    `  - ${summary.retried} handler failures answered 500; the dispatcher retried on its schedule (0, 1, 5, 30 min, 2, 8, 24 h), and the retry succeeded.`,
    '  - An event sent again was acknowledged with "duplicate": true and its handler did not run: the event id is the idempotence key.',
    '',
    output.style('bold', 'Next:'),
    ...aligned(NEXT_STEPS),
  ];
}

/** Where `--keep` left the databases, and the replay that reads the log. */
export function keptLines(output: Output, workdir: DemoWorkdir): string[] {
  return [
    '',
    output.style('bold', `Kept in ${workdir.directory}:`),
    `  ${workdir.dispatchDatabase}   the dispatcher's database and delivery log`,
    `  ${workdir.eventsDatabase}     the receiver's handled event ids`,
    `  acct-webhook replay ${shellQuote(workdir.dispatchDatabase)} --dry-run   what replay would send from its log`,
  ];
}

const NEXT_STEPS: readonly (readonly [command: string, what: string])[] = [
  ['npx create-acct-webhook my-receiver', 'a receiver project of your own'],
  ['npx acct-webhook listen --secret whsec_…', 'a receiver that shows what arrives'],
  ['npx acct-webhook trigger invoice.paid --url … --secret whsec_…', 'send it a signed sample'],
  ['npx acct-webhook --help', 'every command, with examples'],
];

function aligned(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([command]) => command.length));
  return rows.map(([command, what]) => `  ${command.padEnd(width)}   ${what}`);
}

function plural(count: number, one: string): string {
  return `${count} ${one}${count === 1 ? '' : 's'}`;
}

export function summarize(attempts: readonly ExportedAttempt[], events: number, handled: number, duplicatesIgnored: number): DemoSummary {
  const byDelivery = new Map<string, ExportedAttempt[]>();
  for (const attempt of attempts) byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), attempt]);
  const deliveries = [...byDelivery.values()];
  const statusOf = (list: ExportedAttempt[]) => list[0]?.delivery_status;
  return {
    events,
    delivered: deliveries.filter((list) => statusOf(list) === 'delivered').length,
    retried: deliveries.filter((list) => list.filter((attempt) => !attempt.manual).length > 1).length,
    failed: deliveries.filter((list) => statusOf(list) === 'finally_failed').length,
    duplicatesIgnored,
    handled,
    attempts: attempts.length,
  };
}

function resultOf(attempt: ExportedAttempt): string {
  const body = parse(attempt.response_body);
  if (attempt.error_kind === null) return body?.duplicate === true ? 'duplicate: acknowledged, handler not run' : 'delivered';
  const code = typeof body?.error?.code === 'string' ? ` ${body.error.code}` : '';
  return `failed${code} → retry scheduled`;
}

function parse(text: string | null): { duplicate?: unknown; error?: { code?: unknown } } | undefined {
  try {
    return text === null ? undefined : (JSON.parse(text) as { duplicate?: unknown; error?: { code?: unknown } });
  } catch {
    return undefined;
  }
}

/** `+1:00` (minutes and seconds), `+2:36:00` past an hour. */
function offset(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `+${h}:${pad(m)}:${pad(s)}` : `+${m}:${pad(s)}`;
}

function formatSeconds(seconds: number): string {
  return seconds >= 1 ? `${Number(seconds.toFixed(1))} s` : `${Math.round(seconds * 1000)} ms`;
}
