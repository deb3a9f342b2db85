import type { Output } from '../output.js';
import type { ReplayResult } from './send.js';
import type { ReplayItem, Selection } from './select.js';

/** `evt_… invoice.paid  finally_failed → 200 delivered  14 ms` */
export function resultLine(output: Output, result: ReplayResult): string {
  const { item } = result;
  const before = `${item.eventId} ${item.type}  ${item.originalStatus} → `;
  if (result.outcome === 'unreachable') return before + output.style('red', `no answer: ${result.error ?? ''}`);
  const after = `${result.status ?? ''} ${result.outcome}`;
  const extra = [result.duplicate ? 'duplicate: handled before, not run again' : '', result.error ?? ''].filter((part) => part !== '');
  return `${before}${output.style(result.outcome === 'delivered' ? 'green' : 'red', after)}  ${result.ms ?? 0} ms${extra.length > 0 ? `  ${extra.join('; ')}` : ''}`;
}

/** `evt_… invoice.paid  finally_failed  (dlv_…)` for --dry-run */
export function plannedLine(item: ReplayItem): string {
  return `${item.eventId} ${item.type}  ${item.originalStatus}  (delivery ${item.deliveryId})`;
}

export interface ReplayCounts {
  delivered: number;
  failed: number;
}

/** The closing lines: what was sent and how it went, and what was read. */
export function summaryLines(selection: Selection, to: string | undefined, counts: ReplayCounts | 'dry-run'): string[] {
  const events = plural(selection.items.length, 'event');
  const first =
    counts === 'dry-run'
      ? `Dry run: ${events} would be replayed${to ? ` to ${to}` : ''}; nothing was sent.`
      : `Replayed ${events} to ${to ?? ''}: ${counts.delivered} delivered, ${counts.failed} failed.`;
  const malformed = selection.malformed.length > 0 ? ` (${plural(selection.malformed.length, 'malformed line')} skipped, reported above)` : '';
  return [first, `Read ${plural(selection.lines, 'line')}${malformed}; ${plural(selection.deliveries, 'delivery', 'deliveries')} matched the filter.`];
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
