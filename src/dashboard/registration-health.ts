import type { DispatcherCore as Dispatcher } from '../dispatcher/dispatcher.js';
import type { WebhookRegistration } from '../dispatcher/records.js';
import { readsOfDispatcher } from '../dispatcher/reads.js';
import type { BucketRange } from '../ports/buckets.js';
import type { AttemptStats } from '../ports/dispatch-reads.js';
import { bucketLabel, chartRange } from './chart-range.js';
import { durationText } from './duration.js';
import { html, type Content, type Html } from './html.js';
import { timeOf } from './layout.js';

/**
 * A registration's health over the last 24 hours, from its attempts: the share delivered, the
 * response times, attempts per hour, and the latest delivered and failed attempt.
 */
export interface RegistrationHealth {
  range: BucketRange;
  /** Undefined when the store does not offer the reads; a registration without attempts in the range has none. */
  stats: ReadonlyMap<string, AttemptStats> | undefined;
}

/** The health of every registration (or one), read once for the page. */
export async function registrationHealth(dispatcher: Dispatcher, now: number, webhookId?: string): Promise<RegistrationHealth> {
  const range = chartRange('24h', now);
  const reads = await readsOfDispatcher(dispatcher);
  if (!reads) return { range, stats: undefined };
  const stats = await reads.attemptStats({ ...range, ...(webhookId === undefined ? {} : { webhook_id: webhookId }) });
  return { range, stats: new Map(stats.map((entry) => [entry.webhook_id, entry])) };
}

const number = (value: number) => value.toLocaleString('en');

/** "97.5 % of 120 attempts delivered", or that there were none. */
export function successRate(stats: AttemptStats | undefined): Html {
  const attempts = stats?.buckets.reduce((sum, bucket) => sum + bucket.attempts, 0) ?? 0;
  if (!stats || attempts === 0) return html`<span class="muted">no attempts in the last 24 hours</span>`;
  const delivered = stats.buckets.reduce((sum, bucket) => sum + bucket.delivered, 0);
  const rate = (delivered / attempts) * 100;
  return html`<strong data-success-rate="${rate.toFixed(1)}">${rate.toFixed(1)} %</strong> of ${number(attempts)} attempts delivered`;
}

/** "p50 120 ms · p95 840 ms". */
export function responseTimes(stats: AttemptStats | undefined): Content {
  if (!stats || stats.buckets.length === 0) return html`<span class="muted">—</span>`;
  return html`<span data-p50="${stats.p50_ms}" data-p95="${stats.p95_ms}">p50 ${number(stats.p50_ms)} ms · p95 ${number(stats.p95_ms)} ms</span>`;
}

const SPARK_WIDTH = 120;
const SPARK_HEIGHT = 24;

/** Attempts per hour as a small bar chart: delivered in green under failed in red, the busiest hour's count beside it as the scale; its label says the numbers. */
export function sparkline(health: RegistrationHealth, stats: AttemptStats | undefined): Html {
  const { range } = health;
  const count = Math.round((range.to - range.from) / range.size);
  const buckets = Array.from({ length: count }, (_, index) => stats?.buckets.find((bucket) => bucket.bucket === index) ?? { bucket: index, attempts: 0, delivered: 0 });
  const top = Math.max(1, ...buckets.map((bucket) => bucket.attempts));
  const slot = SPARK_WIDTH / count;
  const heightOf = (value: number) => (value / top) * SPARK_HEIGHT;
  const attempts = buckets.reduce((sum, bucket) => sum + bucket.attempts, 0);
  const failed = buckets.reduce((sum, bucket) => sum + bucket.attempts - bucket.delivered, 0);
  const busiest = buckets.reduce((a, b) => (b.attempts > a.attempts ? b : a));
  const label = attempts === 0
    ? 'No attempts in the last 24 hours'
    : `Attempts per hour, last 24 hours: ${number(attempts)} in all, ${number(failed)} failed; the most, ${number(busiest.attempts)}, from ${bucketLabel(range.from + busiest.bucket * range.size)} UTC`;
  const bars = buckets.map((bucket) => {
    if (bucket.attempts === 0) return '';
    const x = (bucket.bucket * slot + 0.5).toFixed(1);
    const width = Math.max(1, slot - 1).toFixed(1);
    const deliveredHeight = heightOf(bucket.delivered);
    const failedHeight = heightOf(bucket.attempts - bucket.delivered);
    return html`<g data-from="${new Date(range.from + bucket.bucket * range.size).toISOString()}" data-attempts="${bucket.attempts}" data-delivered="${bucket.delivered}">${deliveredHeight > 0 ? html`<rect class="bar-ok" x="${x}" y="${(SPARK_HEIGHT - deliveredHeight).toFixed(1)}" width="${width}" height="${deliveredHeight.toFixed(1)}"></rect>` : ''}${failedHeight > 0 ? html`<rect class="bar-failed" x="${x}" y="${(SPARK_HEIGHT - deliveredHeight - failedHeight).toFixed(1)}" width="${width}" height="${failedHeight.toFixed(1)}"></rect>` : ''}</g>`;
  });
  // The scale beside the bars: their full height is the busiest hour's count, which differs per registration.
  const scale = attempts === 0 ? '' : html` <small class="spark-scale muted" aria-hidden="true" data-top="${top}">top ${number(top)}/h</small>`;
  return html`<span class="spark-box"><svg class="spark" viewBox="0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}" role="img" aria-label="${label}"><title>${label}</title>${bars}</svg>${scale}</span>`;
}

/** The latest delivered or failed attempt, as a link to its delivery. */
export function lastAttempt(base: string, stats: AttemptStats | undefined, which: 'last_delivered' | 'last_failed'): Content {
  const attempt = stats?.[which];
  if (!attempt) return html`<span class="muted">none in the last 24 hours</span>`;
  return html`<a href="${base}/deliveries/${encodeURIComponent(attempt.delivery_id)}">${timeOf(new Date(attempt.attempted_at).toISOString())}</a>`;
}

/**
 * The failure streak and how long until the dispatcher disables the registration if it keeps
 * failing (`disableFailingAfterMs` after the streak began), or that it never will.
 */
export function disableCountdown(webhook: WebhookRegistration, disableAfterMs: number | null, now: number): Content {
  if (webhook.status === 'disabled' || webhook.failure_streak === 0 || webhook.failing_since === null) return '';
  if (disableAfterMs === null) return html`<br><span class="muted">never disabled automatically (disableFailingAfterMs: false)</span>`;
  const at = Date.parse(webhook.failing_since) + disableAfterMs;
  const left = at - now;
  return left > 0
    ? html`<br><span data-disable-in-ms="${left}">disabled in ${durationText(left)} if it keeps failing</span> <span class="muted">(after ${durationText(disableAfterMs)} of failure)</span>`
    : html`<br><span data-disable-in-ms="0">disabled at its next failure</span> <span class="muted">(failing for more than ${durationText(disableAfterMs)})</span>`;
}
