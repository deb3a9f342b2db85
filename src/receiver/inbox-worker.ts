import { WakeUpListener } from '../ports/wake-ups.js';
import { contained } from '../kernel/contained.js';
import { isAcctWebhookError } from '../kernel/errors.js';
import { parseEvent } from '../events/parse.js';
import type { WebhookEvent } from '../events/schemas.js';
import type { ClaimedInboxEvent, InboxStore } from '../ports/inbox.js';
import type { Logger } from '../logging/logger.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import { handlerContext, type ContextSettings, type HandlerRun } from './context.js';
import { ReceiverError, WebhookHandlerError } from './errors.js';
import { reportFailure, withinBudget } from './handlers-run.js';
import { lastErrorMessage, lastErrorText } from './inbox-error.js';
import type { InboxSettings } from './inbox-options.js';
import type { OrderingGuard } from './ordering.js';
import type { Webhooks } from './webhooks.js';

/**
 * While deliveries are being received, the worker claims at most once per this many
 * milliseconds: under a burst, acknowledging comes first (the senders wait for it; the inbox is
 * there to absorb the burst) and the handlers catch up as soon as it passes.
 */
export const BURST_CLAIM_INTERVAL_MS = 50;

/** How often `drain()` looks at the inbox at most. */
const DRAIN_POLL_MS = 20;

/** The message of the worker's log line per run. */
export const INBOX_RUN_LOG_MESSAGE = 'inbox event';

/**
 * How many events this process stored it keeps parsed for its worker, and for how long at most
 * (see {@link InboxWorker.remember}): a bound on the memory (a parsed event and its bytes, a few
 * KB each), and on what is kept for events another process's worker claims.
 */
export const PARSED_KEPT_MAX = 1024;
export const PARSED_KEPT_MS = 60_000;

/** What the inbox worker uses: inbox mode's settings, the handlers, the ordering guard, the log. */
export interface InboxWorkerSettings {
  inbox: InboxSettings;
  handlers: Webhooks;
  /** The store's object versions (for the ordering guard) and atomic completion (for `atomic`). */
  store: Pick<IdempotencyStore, 'versions' | 'completeAtomically'>;
  ordering: OrderingGuard | undefined;
  clock: () => number;
  logger: Logger;
  /** False when the logger option was `false`: no log line per run. */
  logging: boolean;
}

interface Parsed {
  event: WebhookEvent;
  rawBody: Buffer;
  keptAt: number;
}

interface Running {
  eventId: string;
  token: string;
  run: HandlerRun | undefined;
  done: Promise<void>;
  /** Its handlers are over and its outcome is submitted to the store (see {@link InboxWorker.finishing}). */
  finishing: boolean;
}

/**
 * Runs inbox events in the background: claims what is due (at most `concurrency` at a time, one
 * per object with the ordering guard), runs the handlers within their budget, and records done,
 * a retry with backoff, or `dead`. Wakes when this process stores an event, when another process
 * does (on a store with wake-ups: PostgreSQL), and otherwise looks every `pollIntervalMs` for
 * events stored by other processes and retries that came due.
 */
export class InboxWorker {
  private readonly running = new Map<string, Running>();
  /**
   * Runs whose handlers are over and whose outcome (done, a retry, dead) is submitted: their
   * slots are free for the next claim, which then goes to the store in the same turn as their
   * outcomes (one transaction for both with SQLite's group commit, instead of one for the
   * outcomes and one more for the claim that their commit woke).
   */
  private finishing = 0;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private lastClaimAt = Number.NEGATIVE_INFINITY;
  private wakePending = false;
  /** Events this process stored, by id, in the order stored (see {@link remember}). */
  private readonly parsed = new Map<string, Parsed>();

  /** Events stored by other processes wake the worker (PostgreSQL: NOTIFY/LISTEN); the poll stays. */
  private readonly wakeUps: WakeUpListener;
  /** What each run's handler context is given. */
  private readonly context: ContextSettings;

  constructor(
    private readonly options: InboxWorkerSettings,
    private readonly inbox: InboxStore,
    /** True while deliveries are being received. */
    private readonly receiving: () => boolean = () => false,
  ) {
    this.context = { logger: options.logger, store: options.store };
    this.wakeUps = new WakeUpListener(inbox.wakeUps, () => this.wake(), options.logger, 'inbox worker');
    void this.wakeUps.start();
  }

  /** Looks for work now (an event was stored, a run finished, or a test wants it). */
  wake(): void {
    if (this.closed) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.ticking = this.tick().finally(() => {
      this.ticking = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /**
   * Keeps an event this process has just stored (its insert created the row), parsed, so that
   * the run claiming it here does not parse and validate the same bytes again. The run uses it
   * only when the claimed row holds the same bytes (a restart, another process's worker, a retry:
   * the stored bytes are parsed). When full, the newest are left out: the worker claims the
   * oldest first, so under a backlog the kept ones are those claimed next; entries older than
   * {@link PARSED_KEPT_MS} (claimed by another process) make room.
   */
  remember(event: WebhookEvent, rawBody: Buffer): void {
    const now = performance.now();
    if (this.parsed.size >= PARSED_KEPT_MAX) {
      const oldest: [string, Parsed] | undefined = this.parsed.entries().next().value;
      if (oldest === undefined || now - oldest[1].keptAt < PARSED_KEPT_MS) return;
      this.parsed.delete(oldest[0]);
    }
    this.parsed.set(event.id, { event, rawBody, keptAt: now });
  }

  /** The claimed event parsed: the one kept when its bytes are the stored ones, else parsed from them. */
  private parse(claimed: ClaimedInboxEvent): WebhookEvent {
    const kept = this.parsed.get(claimed.eventId);
    if (kept) {
      this.parsed.delete(claimed.eventId);
      if (kept.rawBody.equals(claimed.rawBody)) return kept.event;
    }
    return parseEvent(claimed.rawBody);
  }

  /**
   * Wakes once the runs finishing together have all left `running`: the runs of one claim
   * complete in one commit and finish in the same microtask drain, and waking at the first of
   * them would claim one event per finished run (a transaction each) instead of one batch.
   */
  private wakeAfterRuns(): void {
    if (this.wakePending) return;
    this.wakePending = true;
    queueMicrotask(() => {
      this.wakePending = false;
      this.wake();
    });
  }

  /** Resolves when no event of the store is pending or processing (retries included). */
  async drain(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const stats = await this.inbox.stats(this.options.clock());
      if (stats.pending === 0 && stats.processing === 0 && this.running.size === 0) return;
      if (this.closed) throw new ReceiverError('INBOX_CLOSED', 'The receiver is closed; nothing runs the inbox', { pending: stats.pending });
      if (performance.now() >= deadline) {
        throw new ReceiverError('DRAIN_TIMEOUT', `The inbox did not drain within ${timeoutMs} ms`, { pending: stats.pending, processing: stats.processing });
      }
      this.wake();
      // A timer, not a promise the worker resolves: with a store that answers in microtasks
      // (memoryStore) a promise loop would starve the timers the handlers' budgets run on.
      await new Promise<void>((resolve) => setTimeout(resolve, Math.min(this.options.inbox.pollIntervalMs, DRAIN_POLL_MS)));
    }
  }

  /** Stops claiming; waits for running handlers up to `closeTimeoutMs`, then aborts them and gives their events back. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.wakeUps.stop();
    await this.ticking;
    const all = [...this.running.values()];
    const settled = Promise.all(all.map((running) => running.done));
    const timedOut = await Promise.race([
      settled.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), this.options.inbox.closeTimeoutMs).unref()),
    ]);
    if (!timedOut) return;
    await Promise.all(
      [...this.running.values()].map(async (running) => {
        running.run?.abort.abort(new ReceiverError('INBOX_CLOSED', 'The receiver is closing; the event goes back to the inbox'));
        await this.inbox.release(running.eventId, running.token).catch(() => false);
      }),
    );
  }

  private async tick(): Promise<void> {
    const { clock, logger, inbox: settings } = this.options;
    let claimed: ClaimedInboxEvent[] = [];
    const free = settings.concurrency - (this.running.size - this.finishing);
    // Every slot is taken: the first run to finish wakes the worker (no timer to spin on).
    if (free === 0) return;
    const sinceClaim = performance.now() - this.lastClaimAt;
    if (this.receiving() && sinceClaim < BURST_CLAIM_INTERVAL_MS) return this.sleep(BURST_CLAIM_INTERVAL_MS - sinceClaim);
    try {
      this.lastClaimAt = performance.now();
      claimed = await this.inbox.claim(clock(), settings.leaseMs, free);
      for (const event of claimed) this.start(event);
      // All slots taken: the first run to finish wakes the worker.
      if (claimed.length < free) await this.sleep(await this.untilNextDue());
    } catch (error) {
      logger.error({ err: error }, 'The inbox worker could not read the store; it tries again');
      await this.sleep(settings.pollIntervalMs);
    }
  }

  private async untilNextDue(): Promise<number> {
    const next = await this.inbox.nextDueAt();
    const poll = this.options.inbox.pollIntervalMs;
    return next === null ? poll : Math.min(poll, Math.max(0, next - this.options.clock()));
  }

  private sleep(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.timer = setTimeout(() => this.wake(), ms);
    // The worker alone never keeps a process alive: the server (or the test) does.
    this.timer.unref();
    return Promise.resolve();
  }

  private start(claimed: ClaimedInboxEvent): void {
    const running: Running = { eventId: claimed.eventId, token: claimed.token, run: undefined, done: Promise.resolve(), finishing: false };
    running.done = this.process(claimed, running)
      .catch((error: unknown) => this.options.logger.error({ eventId: claimed.eventId, err: error }, 'The inbox worker failed to record a run'))
      .finally(() => {
        if (running.finishing) this.finishing--;
        this.running.delete(claimed.eventId);
        this.wakeAfterRuns();
      });
    this.running.set(claimed.eventId, running);
  }

  /** The run's handlers are over: its slot goes to the next claim, submitted with its outcome. */
  private finish(running: Running): void {
    if (running.finishing) return;
    running.finishing = true;
    this.finishing++;
    this.wakeAfterRuns();
  }

  private async process(claimed: ClaimedInboxEvent, running: Running): Promise<void> {
    let event: WebhookEvent;
    try {
      event = this.parse(claimed);
    } catch (error) {
      // It was valid when stored: this version reads it differently. A retry cannot help.
      const code = isAcctWebhookError(error) ? error.code : 'VALIDATION_ERROR';
      const why = error instanceof Error ? error.message : String(error);
      this.finish(running);
      await this.inbox.fail(claimed.eventId, claimed.token, { code, message: lastErrorText(`The stored payload no longer validates: ${why}`), retryAt: null });
      this.log('error', claimed, { status: 'dead', code }, error);
      return;
    }
    const verdict = await this.verdict(event, claimed);
    if (verdict === 'skip') {
      this.finish(running);
      await this.inbox.complete(event.id, claimed.token, this.options.clock(), { stale: true });
      this.log('info', claimed, { status: 'done', stale: true, type: event.type });
      return;
    }
    await this.runHandlers(event, claimed, running, verdict === 'run_stale');
  }

  private async verdict(event: WebhookEvent, claimed: ClaimedInboxEvent): Promise<'run' | 'run_stale' | 'skip'> {
    const { ordering, store } = this.options;
    if (!ordering || !claimed.version || !store.versions) return 'run';
    return ordering.decide(event, claimed.version, await store.versions.newest(claimed.version.key));
  }

  private async runHandlers(event: WebhookEvent, claimed: ClaimedInboxEvent, running: Running, stale: boolean): Promise<void> {
    const { options } = this;
    const inbound = { started: performance.now(), receivedAt: claimed.receivedAt, rawBody: claimed.rawBody, verified: claimed.verified };
    const run = handlerContext(this.context, event, inbound, { stale, attempt: claimed.attempt, version: claimed.version ?? undefined });
    running.run = run;
    const started = performance.now();
    const work = options.handlers.run(event, run.context);
    const result = Array.isArray(work) ? { results: work } : await withinBudget(work, options.inbox.handlerTimeoutMs);
    let failure: ReceiverError | undefined;
    if (result === 'timeout') {
      failure = new ReceiverError('HANDLER_TIMEOUT', `The handlers did not finish within ${options.inbox.handlerTimeoutMs} ms`, { event_id: event.id });
      run.abort.abort(failure);
    } else if ('error' in result) {
      failure = result.error;
      await reportFailure(options, result.error, event, run);
    } else {
      this.finish(running);
      failure = await this.complete(event, claimed, run, stale, options.inbox.handlerTimeoutMs - (performance.now() - started));
      if (!failure) return;
    }
    // Handlers past their budget may still be running (the signal only asks them to stop): their
    // slot stays taken until the failure is recorded, as before.
    if (result !== 'timeout') this.finish(running);
    await this.fail(event, claimed, failure);
  }

  /** `budgetMs`: what is left of the handler budget, for effects that await (PostgreSQL). */
  private async complete(event: WebhookEvent, claimed: ClaimedInboxEvent, run: HandlerRun, stale: boolean, budgetMs: number): Promise<ReceiverError | undefined> {
    try {
      const completed = await this.inbox.complete(event.id, claimed.token, this.options.clock(), { effects: run.effects, version: claimed.version, stale, budgetMs });
      if (this.options.logging) this.log(completed ? 'info' : 'warn', claimed, { status: completed ? 'done' : 'lease_lost', type: event.type, ...(stale ? { stale } : {}) });
      return undefined;
    } catch (error) {
      // Nothing was recorded (atomic effects roll back with it): the run failed.
      return new WebhookHandlerError([error], { event_id: event.id });
    }
  }

  private async fail(event: WebhookEvent, claimed: ClaimedInboxEvent, failure: ReceiverError): Promise<void> {
    const delays = this.options.inbox.retryDelaysMs;
    const delay = delays[claimed.attempt - 1];
    const retryAt = delay === undefined ? null : this.options.clock() + delay;
    await this.inbox.fail(event.id, claimed.token, { code: failure.code, message: lastErrorMessage(failure), retryAt });
    const fields = { status: retryAt === null ? 'dead' : 'pending', type: event.type, code: failure.code, ...(retryAt === null ? {} : { retryAt: new Date(retryAt).toISOString() }) };
    this.log(retryAt === null ? 'error' : 'warn', claimed, fields, failure);
  }

  private log(level: 'info' | 'warn' | 'error', claimed: ClaimedInboxEvent, fields: Record<string, unknown>, error?: unknown): void {
    if (!this.options.logging) return;
    const line = { eventId: claimed.eventId, attempt: claimed.attempt, ...fields, ...(error === undefined ? {} : { err: error }) };
    contained(() => this.options.logger[level](line, INBOX_RUN_LOG_MESSAGE));
  }
}
