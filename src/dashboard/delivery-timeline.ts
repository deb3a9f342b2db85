import type { DeliveryDetail } from '../dispatcher/records.js';
import { waitBeforeAttempt } from '../dispatcher/schedule.js';
import { durationText } from './duration.js';
import { html, type Content, type Html } from './html.js';
import { timeOf } from './layout.js';
import { isoString } from '../kernel/iso-string.js';

/** One point of a delivery's timeline: an attempt made, or one the schedule plans. */
export interface TimelinePoint {
  kind: 'attempt' | 'planned';
  /** The attempt's number (manual attempts included, as the delivery counts them). */
  number: number;
  /** When it was made, or is planned. */
  at: number;
  /** For an automatic attempt: when the schedule planned it. */
  plannedAt: number | null;
  manual: boolean;
  /** Made attempts: delivered (2xx) or not, the HTTP status (null: no answer) and the response time. */
  delivered?: boolean;
  status?: number | null;
  responseTimeMs?: number;
}

export interface Timeline {
  points: TimelinePoint[];
  /** "Attempt 4 of 7 is next, in 2 h 40 min; the last planned, attempt 7, in 33 h." */
  summary: string;
  start: number;
  end: number;
}

/**
 * The attempts of a delivery on a time axis with the schedule's planned times: each automatic
 * attempt was planned a schedule step after the previous one began (the first, the schedule's
 * first wait after the delivery was created); a retrying delivery's next attempt is at
 * `next_attempt_at`, and each later one a step after the one before, if they keep failing.
 */
export function deliveryTimeline(delivery: DeliveryDetail, schedule: readonly number[], now: number): Timeline {
  const created = Date.parse(delivery.created_at);
  const points: TimelinePoint[] = [];
  let previousAutomatic: number | null = null;
  let automatic = 0;
  for (const attempt of delivery.attempts) {
    const at = Date.parse(attempt.attempted_at);
    let plannedAt: number | null = null;
    if (!attempt.manual) {
      automatic += 1;
      const wait = waitBeforeAttempt(schedule, automatic);
      plannedAt = wait === null ? null : (previousAutomatic ?? created) + wait;
      previousAutomatic = at;
    }
    points.push({ kind: 'attempt', number: attempt.attempt_number, at, plannedAt, manual: attempt.manual, delivered: attempt.error_kind === null, status: attempt.response_status, responseTimeMs: attempt.response_time_ms });
  }
  const total = schedule.length;
  let summary: string;
  if (delivery.status === 'retrying' && delivery.next_attempt_at !== null) {
    let at = Date.parse(delivery.next_attempt_at);
    let number = delivery.attempt_count + 1;
    const first = delivery.automatic_attempt_count + 1;
    for (let step = first; step <= total; step++) {
      if (step > first) {
        const wait = waitBeforeAttempt(schedule, step)!;
        at += wait;
      }
      points.push({ kind: 'planned', number, at, plannedAt: at, manual: false });
      number += 1;
    }
    const next = points.find((point) => point.kind === 'planned')!;
    const last = points.at(-1)!;
    const when = (ms: number) => (ms <= now ? 'due now' : `in ${durationText(ms - now)}`);
    summary = `Attempt ${first} of ${total} by the schedule is next, ${when(next.at)}${last === next ? '; it is the last' : `; the last, attempt ${total} of ${total}, ${when(last.at)} if the ones before fail`}.`;
  } else if (delivery.status === 'delivered') {
    const winning = [...points].reverse().find((point) => point.delivered === true);
    summary = `Delivered by attempt ${winning?.number ?? delivery.attempt_count}${winning ? `, ${durationText(winning.at - created)} after the delivery was created` : ''}.`;
  } else if (delivery.status === 'finally_failed') {
    summary = `Finally failed: all ${delivery.automatic_attempt_count} attempts of the schedule failed${delivery.attempt_count > delivery.automatic_attempt_count ? `, and ${delivery.attempt_count - delivery.automatic_attempt_count} manual ones` : ''}. Retry it by hand once the receiver is fixed.`;
  } else {
    summary = `${delivery.attempt_count} attempts so far; none is planned.`;
  }
  const times = points.map((point) => point.at);
  return { points, summary, start: created, end: Math.max(created + 1, now, ...times) };
}

const WIDTH = 760;
const HEIGHT = 116;
const LEFT = 40;
const RIGHT = 60;
const AXIS = 56;
/** The rows a point's label may take, in the order they are tried: below, above, further below, further above. */
const LABEL_ROWS = [AXIS + 24, AXIS - 16, AXIS + 42, AXIS - 30];
/**
 * A label's width in the SVG's units per character: the axis text is 11 units high, and no
 * character of a label ("7: +33 h 10 min") is wider than 0.62 of its height in the sans-serif
 * fonts the stylesheet names.
 */
const LABEL_CHAR_WIDTH = 6.8;
/** The space kept between two labels of one row. */
const LABEL_GAP = 6;

/** Where a label is drawn: its centre and row, or nowhere when every row is taken there. */
export interface LabelPlace {
  x: number;
  y: number;
}

/**
 * Places labels left to right, each in the first row where it does not overlap the one before
 * it, kept inside the chart. A label with no free row is left out: the point's <title> and the
 * table below still say it. Exported for its tests.
 */
export function placeLabels(labels: readonly { x: number; text: string }[], width = WIDTH, rows: readonly number[] = LABEL_ROWS): (LabelPlace | null)[] {
  const rowEnds = rows.map(() => -Infinity);
  return labels.map(({ x, text }) => {
    const half = (text.length * LABEL_CHAR_WIDTH) / 2;
    const centre = Math.min(Math.max(x, half), width - half);
    const row = rowEnds.findIndex((end) => centre - half >= end + LABEL_GAP);
    if (row === -1) return null;
    rowEnds[row] = centre + half;
    return { x: centre, y: rows[row]! };
  });
}

/**
 * The timeline as inline SVG and a table. The axis is the square root of the time since the
 * delivery was created, so that attempts a minute apart and a day apart are both readable; every
 * point carries its numbers as data attributes and in its <title>, and the table says the same.
 */
export function timelineView(timeline: Timeline, now: number): Html {
  const span = Math.sqrt(timeline.end - timeline.start);
  const x = (ms: number) => LEFT + (Math.sqrt(Math.max(0, ms - timeline.start)) / span) * (WIDTH - LEFT - RIGHT);
  const relative = (ms: number) => `+${durationText(ms - timeline.start)}`;
  const places = placeLabels(timeline.points.map((point) => ({ x: x(point.at), text: `${point.number}: ${relative(point.at)}` })));
  const marks = timeline.points.map((point, index) => {
    const cx = x(point.at).toFixed(1);
    const place = places[index] ?? null;
    const label = point.kind === 'planned'
      ? `Attempt ${point.number}, planned ${isoString(point.at)}${point.at > now ? ` (in ${durationText(point.at - now)})` : ' (due)'}`
      : `Attempt ${point.number}${point.manual ? ' (manual)' : ''} at ${isoString(point.at)}: ${point.delivered ? 'delivered' : 'failed'}, HTTP ${point.status ?? 'none'}, ${point.responseTimeMs} ms`;
    const shape = point.kind === 'planned'
      ? html`<circle class="planned" cx="${cx}" cy="${AXIS}" r="6"></circle>`
      : html`<circle class="mark ${point.delivered ? 'bar-delivered' : 'bar-failed'}" cx="${cx}" cy="${AXIS}" r="${point.manual ? 5 : 7}"></circle>`;
    return html`<g data-kind="${point.kind}" data-number="${point.number}" data-at="${isoString(point.at)}"${point.kind === 'attempt' ? html` data-status="${point.status ?? 'none'}" data-response-ms="${point.responseTimeMs ?? 0}" data-delivered="${point.delivered ? 'true' : 'false'}"` : ''}><title>${label}</title>${shape}${place === null ? '' : html`<text class="axis point-label" x="${place.x.toFixed(1)}" y="${place.y}" text-anchor="middle">${point.number}: ${relative(point.at)}</text>`}</g>`;
  });
  const nowX = x(now).toFixed(1);
  const rows = timeline.points.map(
    (point) => html`<tr><th scope="row">${point.number}${point.manual ? ' (manual)' : ''}</th><td>${point.plannedAt === null ? html`<span class="muted">—</span>` : timeOf(isoString(point.plannedAt))}</td>
<td>${point.kind === 'attempt' ? timeOf(isoString(point.at)) : html`<span class="muted">${point.at > now ? `in ${durationText(point.at - now)}` : 'due now'}</span>`}</td>
<td>${point.kind === 'attempt' ? (point.delivered ? 'delivered' : 'failed') : 'planned'}</td><td>${point.kind === 'attempt' ? (point.status ?? html`<span class="muted">none</span>`) : ''}</td><td class="num">${point.kind === 'attempt' ? `${point.responseTimeMs} ms` : ''}</td></tr>`,
  );
  const content: Content = html`<section class="timeline" aria-labelledby="timeline-heading"><h2 id="timeline-heading">Timeline</h2>
<p id="timeline-summary">${timeline.summary}</p>
<svg class="chart-svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="group" aria-labelledby="timeline-title timeline-summary">
<title id="timeline-title">The attempts on a time axis (square root of the time since the delivery was created), with the schedule's planned ones</title>
<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${AXIS}" y2="${AXIS}"></line>
<line class="now" x1="${nowX}" x2="${nowX}" y1="${AXIS - 40}" y2="${AXIS + 10}"></line><text class="axis" x="${nowX}" y="${AXIS - 44}" text-anchor="middle">now</text>
${marks}
</svg>
<ul class="legend"><li><span class="swatch bar-delivered" aria-hidden="true"></span>delivered</li><li><span class="swatch bar-failed" aria-hidden="true"></span>failed</li><li><span class="swatch swatch-planned" aria-hidden="true"></span>planned by the schedule</li></ul>
<table><caption class="muted">Every attempt, made and planned (times UTC)</caption>
<thead><tr><th scope="col">Attempt</th><th scope="col">Planned</th><th scope="col">Made</th><th scope="col">Outcome</th><th scope="col">HTTP status</th><th scope="col" class="num">Response time</th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
  return html`${content}`;
}
