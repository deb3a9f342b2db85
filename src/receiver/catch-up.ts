import type { Logger } from '../logging/logger.js';
import { MAX_STATE_LOOKUP, type CatchUpCheckpoint, type CatchUpStore } from '../ports/catch-up.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import type { AcknowledgedBody, WebhookResponse } from './answers.js';
import {
  resolveCatchUp,
  resolvePeriodic,
  resolveReconcile,
  type CatchUpFeedQuery,
  type CatchUpJob,
  type CatchUpOptions,
  type CatchUpRange,
  type PeriodicCatchUpOptions,
  type ResolvedCatchUp,
} from './catch-up-options.js';
import type { CatchUpSummary, ReconcileReport, UnhandledEvent } from './catch-up-summary.js';
import { ReceiverError } from './errors.js';

/** What catch-up uses: the receiver's pipeline for one feed event, its store, clock and logger. */
export interface CatchUpSettings {
  /** Runs one feed event through the receiver's pipeline, without signature verification. */
  deliver(event: unknown): Promise<WebhookResponse>;
  store: Pick<IdempotencyStore, 'catchUp'>;
  clock: () => number;
  logger: Logger;
}

type Settled = 'handled' | 'queued' | 'duplicate' | 'stale' | 'quarantined' | 'in_progress' | 'failed';

/** What became of one event, read from the answer the pipeline gave (the same a webhook gets). */
function settledAs(response: WebhookResponse): Settled {
  if (response.status === 200) {
    const body = response.body as AcknowledgedBody;
    if (body.duplicate) return 'duplicate';
    if (body.acknowledged === 'unknown_event_type') return 'quarantined';
    if (body.queued) return 'queued';
    return body.stale ? 'stale' : 'handled';
  }
  if (response.status === 409) return 'in_progress';
  if (response.status === 422) return 'quarantined';
  return 'failed';
}

/** The receiver's `catchUp` and `reconcile`, over its pipeline and its store. */
export function catchUpApi(settings: CatchUpSettings) {
  const { clock } = settings;

  function catchUpStore(): CatchUpStore {
    const store = settings.store.catchUp;
    if (!store) throw new ReceiverError('CATCH_UP_UNSUPPORTED', 'The store keeps no catch-up checkpoints (store.catchUp); use sqliteStore, postgresStore or memoryStore, or checkpoint: false with since', {});
    return store;
  }

  async function runOnce(options: ResolvedCatchUp, useSince: boolean): Promise<CatchUpSummary> {
    const started = performance.now();
    const checkpoints = options.checkpoint === false ? undefined : catchUpStore();
    const name = options.checkpoint === false ? undefined : options.checkpoint;
    let cursor: string | undefined;
    let startedFrom: CatchUpSummary['startedFrom'] = 'since';
    let checkpoint: CatchUpCheckpoint | null = null;
    if (useSince && options.since !== undefined) {
      cursor = undefined;
    } else {
      const stored = checkpoints && name !== undefined ? await checkpoints.checkpoint(name) : undefined;
      if (!stored) {
        throw new ReceiverError('NO_CHECKPOINT', 'Nothing to resume from: give since (e.g. 72h) for the first catch-up', { checkpoint: name ?? false });
      }
      cursor = stored.cursor;
      checkpoint = stored;
      startedFrom = 'checkpoint';
    }
    const summary: CatchUpSummary = {
      read: 0,
      handled: 0,
      queued: 0,
      duplicates: 0,
      stale: 0,
      quarantined: 0,
      inProgress: 0,
      failed: 0,
      checkpoint,
      heldBy: null,
      startedFrom,
      aborted: false,
      durationMs: 0,
    };
    const base = feedQuery(options, cursor === undefined);
    pages: for (;;) {
      const page = await options.client.events.list({ ...base, ...(cursor === undefined ? {} : { cursor }) });
      let last: { id: string; created: number } | undefined;
      for (const event of page.data) {
        if (options.signal?.aborted) {
          summary.aborted = true;
          break pages;
        }
        summary.read++;
        const response = await settings.deliver(event);
        const settled = settledAs(response);
        count(summary, settled);
        if (settled === 'failed' || settled === 'in_progress') {
          summary.heldBy ??= { ...identify(event), outcome: settled, ...codeOf(response) };
        } else {
          last = { id: identify(event).eventId, created: createdOf(event) };
        }
      }
      // The checkpoint moves only past whole pages of settled events: what failed is read again next time.
      if (checkpoints && name !== undefined && summary.heldBy === null) {
        const previous = summary.checkpoint;
        const next: CatchUpCheckpoint = {
          name,
          cursor: page.pagination.next_cursor,
          last_event_id: last?.id ?? previous?.last_event_id ?? null,
          last_event_created: last?.created ?? previous?.last_event_created ?? null,
          updated_at: clock(),
        };
        await checkpoints.saveCheckpoint(next);
        summary.checkpoint = next;
      }
      if (!page.pagination.has_more || page.data.length === 0) break;
      cursor = page.pagination.next_cursor;
    }
    summary.durationMs = Math.round((performance.now() - started) * 100) / 100;
    return summary;
  }

  /**
   * Reads the feed and runs each event through the receiver's pipeline; see `Receiver.catchUp`.
   */
  function catchUp(options: PeriodicCatchUpOptions): CatchUpJob;
  function catchUp(options: CatchUpOptions): Promise<CatchUpSummary>;
  function catchUp(options: CatchUpOptions | PeriodicCatchUpOptions): Promise<CatchUpSummary> | CatchUpJob {
    if (typeof options === 'object' && options !== null && 'every' in options && options.every !== undefined) return periodic(options);
    let resolved: ResolvedCatchUp;
    try {
      resolved = resolveCatchUp(options, clock());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return runOnce(resolved, true);
  }

  function periodic(options: PeriodicCatchUpOptions): CatchUpJob {
    const resolved = resolvePeriodic(options, clock());
    if (resolved.checkpoint === false) {
      throw new ReceiverError('NO_CHECKPOINT', 'A periodic catch-up resumes from its checkpoint: give it a name, not checkpoint: false', { checkpoint: false });
    }
    catchUpStore();
    let runs = 0;
    let last: CatchUpSummary | undefined;
    let stopped = false;
    let handle: unknown;
    let running: Promise<void> | undefined;
    const run = async (first: boolean) => {
      try {
        last = await runOnce(resolved, first);
        resolved.onRun?.({ summary: last });
      } catch (error) {
        settings.logger.error({ err: error }, 'A periodic catch-up failed; the next run tries again');
        resolved.onRun?.({ error });
      } finally {
        runs++;
      }
    };
    const schedule = (first: boolean) => {
      if (stopped) return;
      running = run(first).then(() => {
        running = undefined;
        if (!stopped) handle = resolved.timers.setTimeout(() => schedule(false), resolved.everyMs);
      });
    };
    schedule(true);
    return {
      async stop() {
        stopped = true;
        if (handle !== undefined) resolved.timers.clearTimeout(handle);
        await running;
      },
      get runs() {
        return runs;
      },
      get last() {
        return last;
      },
    };
  }

  /** The reconciliation report; see `Receiver.reconcile`. */
  async function reconcile(options: CatchUpRange): Promise<ReconcileReport> {
    const resolved = resolveReconcile(options, clock());
    const states = catchUpStore();
    const report: ReconcileReport = {
      since: resolved.since === undefined ? null : new Date(resolved.since).toISOString(),
      until: resolved.until === undefined ? null : new Date(resolved.until).toISOString(),
      read: 0,
      handled: 0,
      unhandled: 0,
      byType: {},
      byState: { missing: 0, pending: 0, failed: 0, quarantined: 0 },
    };
    const base = feedQuery({ ...resolved, checkpoint: false }, true);
    let cursor: string | undefined;
    for (;;) {
      if (resolved.signal?.aborted) break;
      const page = await resolved.client.events.list({ ...base, ...(cursor === undefined ? {} : { cursor }) });
      const events = page.data.map((event) => ({ ...identify(event), created: createdText(event) }));
      const found = new Map<string, string>();
      for (let at = 0; at < events.length; at += MAX_STATE_LOOKUP) {
        const slice = events.slice(at, at + MAX_STATE_LOOKUP).map((event) => event.eventId);
        for (const [id, state] of await states.receivedStates(slice, clock())) found.set(id, state);
      }
      for (const event of events) {
        report.read++;
        const state = found.get(event.eventId);
        if (state === 'handled') {
          report.handled++;
          continue;
        }
        const entry: UnhandledEvent = { id: event.eventId, type: event.type, created: event.created, state: (state ?? 'missing') as UnhandledEvent['state'] };
        (report.byType[event.type] ??= []).push(entry);
        report.byState[entry.state]++;
        report.unhandled++;
      }
      if (!page.pagination.has_more || page.data.length === 0) break;
      cursor = page.pagination.next_cursor;
    }
    return report;
  }

  return { catchUp, reconcile };
}

function feedQuery(options: ResolvedCatchUp, withSince: boolean): CatchUpFeedQuery {
  const query: CatchUpFeedQuery = { per_page: options.pageSize };
  if (options.types !== undefined) query.types = options.types;
  if (withSince && options.since !== undefined) query.created_after = new Date(options.since).toISOString();
  if (options.until !== undefined) query.created_before = new Date(options.until).toISOString();
  return query;
}

function count(summary: CatchUpSummary, settled: Settled): void {
  switch (settled) {
    case 'queued':
      summary.queued++;
      summary.handled++;
      return;
    case 'handled':
      summary.handled++;
      return;
    case 'duplicate':
      summary.duplicates++;
      return;
    case 'stale':
      summary.stale++;
      return;
    case 'quarantined':
      summary.quarantined++;
      return;
    case 'in_progress':
      summary.inProgress++;
      return;
    case 'failed':
      summary.failed++;
  }
}

function identify(event: unknown): { eventId: string; type: string } {
  const value = (typeof event === 'object' && event !== null ? event : {}) as { id?: unknown; type?: unknown };
  return { eventId: typeof value.id === 'string' ? value.id : '', type: typeof value.type === 'string' ? value.type : '' };
}

function createdText(event: unknown): string {
  const created = (typeof event === 'object' && event !== null ? (event as { created?: unknown }).created : undefined);
  return typeof created === 'string' ? created : '';
}

function createdOf(event: unknown): number {
  const ms = Date.parse(createdText(event));
  return Number.isFinite(ms) ? ms : 0;
}

function codeOf(response: WebhookResponse): { code?: string } {
  const body = response.body as { error?: { code?: unknown } };
  return typeof body.error?.code === 'string' ? { code: body.error.code } : {};
}
