import type { Output, Style } from '../output.js';
import { clockTime } from '../time-format.js';
/** A delivery as `listen` and `demo` show it: the receiver's outcome plus what the CLI knows. */
export interface DeliveryView {
  /** ms since the epoch, when the delivery arrived */
  time: number;
  /** `handled`, `duplicate`, `rejected`, `quarantined`, `handler_failed`, `in_progress`, … */
  outcome: string;
  /** The HTTP status answered. */
  status?: number;
  code?: string;
  eventId?: string;
  type?: string;
  reason?: string;
  durationMs?: number;
  /** Key fields of the event's object, for events whose handler ran. */
  fields?: Record<string, string>;
  /** What else happened, e.g. the result of forwarding. */
  note?: string;
}

const OUTCOME_STYLES: Readonly<Record<string, Style>> = {
  handled: 'green',
  duplicate: 'cyan',
  unknown_event_type: 'yellow',
  in_progress: 'yellow',
  rejected: 'red',
  quarantined: 'red',
  handler_failed: 'red',
  handler_timeout: 'red',
  error: 'red',
};
const OUTCOME_WIDTH = 'handler_timeout'.length;
const TYPE_WIDTH = 'subscription.cancelled'.length;

/** What each outcome means for the sender, in words. */
const OUTCOME_NOTES: Readonly<Record<string, string>> = {
  duplicate: 'handled before; the handlers did not run again',
  in_progress: 'the same event is being handled right now; the sender retries later',
  unknown_event_type: 'an event type this version does not know: acknowledged and kept',
  handler_failed: 'the handler failed; the claim was released and the sender retries',
  handler_timeout: 'the handler ran out of time; the sender retries',
};

/**
 * `09:41:02  200 handled          invoice.paid            evt_…` and, indented below, the key
 * fields, the reason of a refusal, or a note.
 */
export function renderDelivery(output: Output, view: DeliveryView): string[] {
  const status = view.status === undefined ? '---' : String(view.status);
  const outcome = output.style(OUTCOME_STYLES[view.outcome] ?? 'bold', view.outcome.padEnd(OUTCOME_WIDTH));
  const what = view.type !== undefined ? `${view.type.padEnd(TYPE_WIDTH)}  ${view.eventId ?? ''}` : (view.code ?? '');
  const lines = [`${clockTime(view.time)}  ${status} ${outcome}  ${what}`.trimEnd()];
  const details = detailLines(view);
  return [...lines, ...details.map((detail) => `          ${output.style('dim', detail)}`)];
}

function detailLines(view: DeliveryView): string[] {
  const lines: string[] = [];
  if (view.fields && Object.keys(view.fields).length > 0) {
    lines.push(Object.entries(view.fields).map(([field, value]) => `${field} ${value}`).join(' · '));
  }
  if (view.code !== undefined && view.type !== undefined) lines.push(`${view.code}${view.reason ? `: ${view.reason}` : ''}`);
  else if (view.reason !== undefined) lines.push(view.reason);
  if (view.note !== undefined) lines.push(view.note);
  const meaning = OUTCOME_NOTES[view.outcome];
  if (meaning !== undefined) lines.push(meaning);
  return lines;
}
