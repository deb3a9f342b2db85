import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Dispatcher } from '../platform/node-dispatcher.js';
import { DispatcherError, InvalidUrlError } from '../dispatcher/errors.js';
import type { WebhookRegistration, WebhookStatus } from '../dispatcher/records.js';
import type { SigningAlgorithm, WebhookScheme } from '../ports/dispatch-statuses.js';
import type { EventPattern } from '../events/catalog.js';
import type { SqliteConnection } from '../stores/sqlite/drivers.js';
import type { SandboxClock } from './clock.js';
import { SandboxError } from './errors.js';
import type { Faults } from './faults.js';
import type { IdFactory } from './ids.js';
import { urlReason } from './url-reasons.js';
import { disabledFields, disabledMessage, enabledMessage, type DisabledFields, type SandboxWebhookStatusChange } from './webhook-status.js';

/** The header that tells the fault proxy a request comes from this sandbox's Dispatcher; never forwarded. */
export const PROXY_TOKEN_HEADER = 'x-acct-sandbox-proxy';

/**
 * A registration as the sandbox API shows it: the document's fields, the user's URL; while it is
 * disabled, also when, why and how to enable it again.
 */
export interface SandboxWebhook extends Partial<DisabledFields> {
  id: string;
  url: string;
  events: EventPattern[];
  status: WebhookStatus;
  /** How deliveries are signed, shown when it is not the platform's: `standard-webhooks` or `both`. */
  scheme?: WebhookScheme;
  /** Shown with `scheme`. */
  algorithm?: SigningAlgorithm;
  /** The `whpk_…` public key receivers verify `v1a` with, for ed25519. */
  public_key?: string;
  created_at: string;
}

/** What `PATCH /v1/webhooks/{id}` changes: the events, the status, and whether enabling replays the skipped events. */
export interface WebhookChange {
  events?: EventPattern[] | undefined;
  status?: WebhookStatus | undefined;
  replay_skipped?: boolean | undefined;
}

/** `GET /v1/sandbox/faults`: the faults of new registrations and of each live one. */
export interface FaultsView {
  new_webhooks: Faults;
  webhooks: { webhook_id: string; url: string; faults: Faults }[];
}

/** The sandbox's row of a registration, joined with the Dispatcher's. */
export interface WebhookEntry {
  id: string;
  dispatcherId: string;
  url: string;
  faults: Faults;
}

interface Row {
  id: string;
  dispatcher_id: string;
  url: string;
  faults: string;
  created_at: number;
}

export interface WebhookRegistryOptions {
  db: SqliteConnection;
  dispatcher: Dispatcher;
  /** The account's business: its registrations receive its events only. */
  businessId: string;
  ids: IdFactory;
  clock: SandboxClock;
  /** Faults of a new registration (the CLI's --fault). */
  defaultFaults: Faults;
  /** Told when a registration is disabled or made active again. */
  onStatus: (change: SandboxWebhookStatusChange) => void;
}

/**
 * Registrations: each is a Dispatcher registration (which checks the URL, issues and rotates the
 * secret, signs and schedules) whose URL is the sandbox's fault proxy for it; the sandbox keeps
 * the user's URL, its own reproducible id and the faults beside it.
 */
export class WebhookRegistry {
  /** Proves to the proxy that a request comes from this sandbox's Dispatcher. */
  private readonly proxyToken = randomBytes(16).toString('hex');
  private proxyBase = '';
  /** Faults of a new registration: the start's, until every fault is cleared. */
  private defaultFaults: Faults;

  constructor(private readonly options: WebhookRegistryOptions) {
    this.defaultFaults = options.defaultFaults;
  }

  /** Is this the header value the Dispatcher sends with every attempt? Compared in constant time. */
  isProxyToken(value: string | string[] | undefined): boolean {
    const given = Buffer.from(typeof value === 'string' ? value : '');
    const expected = Buffer.from(this.proxyToken);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Points every registration at the proxy of this run (the port may differ from the last run). */
  async useProxy(base: string): Promise<void> {
    this.proxyBase = base;
    for (const row of this.rows()) await this.options.dispatcher.webhooks.update(row.dispatcher_id, this.proxyTarget(row.dispatcher_id));
  }

  async create(url: string, events: EventPattern[], signing: { scheme?: WebhookScheme | undefined; algorithm?: SigningAlgorithm | undefined } = {}): Promise<SandboxWebhook & { secret: string }> {
    const { dispatcher, db, ids, clock } = this.options;
    const created = await asValidation(
      () => dispatcher.webhooks.create({ business_id: this.options.businessId, url, events, ...(signing.scheme === undefined ? {} : { scheme: signing.scheme }), ...(signing.algorithm === undefined ? {} : { algorithm: signing.algorithm }) }),
      url,
    );
    await dispatcher.webhooks.update(created.id, this.proxyTarget(created.id));
    const row: Row = { id: ids.next('wh'), dispatcher_id: created.id, url: created.url, faults: JSON.stringify(this.defaultFaults), created_at: clock.now() };
    db.prepare('INSERT INTO sandbox_webhooks (id, dispatcher_id, url, faults, created_at) VALUES (@id, @dispatcher_id, @url, @faults, @created_at)').run(row);
    return { ...this.view(row, created), secret: created.secret };
  }

  async list(): Promise<SandboxWebhook[]> {
    const registrations = new Map((await this.options.dispatcher.webhooks.list()).map((registration) => [registration.id, registration]));
    return this.rows().flatMap((row) => {
      const registration = registrations.get(row.dispatcher_id);
      return registration === undefined ? [] : [this.view(row, registration)];
    });
  }

  async get(id: string): Promise<SandboxWebhook> {
    const row = this.row(id);
    return this.view(row, await this.options.dispatcher.webhooks.get(row.dispatcher_id));
  }

  /**
   * Changes the events and the status. Enabling starts a clean slate (the disable rule counts
   * from the next failure); with `replay_skipped`, the events kept as skipped while it was
   * disabled are queued too, each once, oldest first. The answer has `replayed` when a replay
   * was asked for.
   */
  async update(id: string, change: WebhookChange): Promise<SandboxWebhook & { replayed?: number }> {
    const row = this.row(id);
    const { webhooks } = this.options.dispatcher;
    const before = await webhooks.get(row.dispatcher_id);
    const events = change.events;
    let after = events === undefined ? before : await asValidation(() => webhooks.update(row.dispatcher_id, { events }));
    let replayed: number | null = null;
    if (change.status === 'active') {
      const enabled = await webhooks.enable(row.dispatcher_id, { replay: change.replay_skipped === true });
      after = enabled;
      if (change.replay_skipped === true) replayed = enabled.replayed;
    } else if (change.status === 'disabled' && before.status === 'active') {
      after = await webhooks.update(row.dispatcher_id, { status: 'disabled' });
    }
    if (after.status !== before.status || replayed !== null) this.announce(row, after, replayed);
    return { ...this.view(row, after), ...(replayed === null ? {} : { replayed }) };
  }

  /** Tells about a registration the Dispatcher has just disabled for failing (its alert's times). */
  announceDisabled(dispatcherId: string, { disabled_at, failing_since }: { disabled_at: string; failing_since: string }): void {
    const row = this.rowByDispatcherId(dispatcherId, { deleted: false });
    if (row === undefined) return;
    this.options.onStatus({
      webhook_id: row.id,
      url: row.url,
      status: 'disabled',
      at: disabled_at,
      disabled_reason: 'failing',
      replayed: null,
      message: disabledMessage(row.id, 'failing', failing_since, disabled_at, this.options.dispatcher.settings.disableFailingAfterMs),
    });
  }

  async delete(id: string): Promise<void> {
    const row = this.row(id);
    await this.options.dispatcher.webhooks.delete(row.dispatcher_id);
    this.options.db.prepare('UPDATE sandbox_webhooks SET deleted_at = ? WHERE id = ?').run(this.options.clock.now(), id);
  }

  /** A new secret (or key pair); with `graceMs` the previous one keeps signing beside it until then. */
  async rotateSecret(id: string, graceMs?: number): Promise<SandboxWebhook & { secret: string }> {
    const row = this.row(id);
    const secret = await asValidation(() => this.options.dispatcher.webhooks.rotateSecret(row.dispatcher_id, graceMs === undefined ? {} : { graceMs }));
    return { ...(await this.get(id)), secret };
  }

  /** The faults in effect: those every new registration gets, and each live registration's. */
  faultsView(): FaultsView {
    return { new_webhooks: this.defaultFaults, webhooks: this.rows().map((row) => ({ webhook_id: row.id, url: row.url, faults: entryOf(row).faults })) };
  }

  /** Turns every fault off: those of every live registration and those new ones would get. */
  clearFaults(off: Faults): FaultsView {
    this.defaultFaults = off;
    this.options.db.prepare('UPDATE sandbox_webhooks SET faults = ? WHERE deleted_at IS NULL').run(JSON.stringify(off));
    return this.faultsView();
  }

  setFaults(id: string, faults: Faults): Faults {
    this.row(id);
    this.options.db.prepare('UPDATE sandbox_webhooks SET faults = ? WHERE id = ?').run(JSON.stringify(faults), id);
    return faults;
  }

  /** A live registration by the sandbox's id. @throws SandboxError NOT_FOUND */
  entry(id: string): WebhookEntry {
    return entryOf(this.row(id));
  }

  /** A live registration by the Dispatcher's id: how the proxy finds its target. */
  byDispatcherId(dispatcherId: string): WebhookEntry | undefined {
    const row = this.rowByDispatcherId(dispatcherId, { deleted: false });
    return row === undefined ? undefined : entryOf(row);
  }

  /** A registration by the Dispatcher's id, also a deleted one: how an attempt is named in the sandbox's terms. */
  anyByDispatcherId(dispatcherId: string): WebhookEntry | undefined {
    const row = this.rowByDispatcherId(dispatcherId, { deleted: true });
    return row === undefined ? undefined : entryOf(row);
  }

  private announce(row: Row, registration: WebhookRegistration, replayed: number | null): void {
    const disabled = registration.status === 'disabled';
    const at = (disabled ? registration.disabled_at : registration.updated_at) ?? registration.updated_at;
    const reason = disabled ? (registration.disabled_reason ?? 'manual') : null;
    this.options.onStatus({
      webhook_id: row.id,
      url: row.url,
      status: registration.status,
      at,
      disabled_reason: reason,
      replayed,
      message: reason === null ? enabledMessage(replayed) : disabledMessage(row.id, reason, registration.failing_since, at, this.options.dispatcher.settings.disableFailingAfterMs),
    });
  }

  private view(row: Row, registration: WebhookRegistration): SandboxWebhook {
    const disabled = disabledFields(row.id, registration, this.options.dispatcher.settings.disableFailingAfterMs);
    return {
      id: row.id,
      url: row.url,
      events: registration.events,
      status: registration.status,
      // The document's fields exactly for the platform's scheme; the signing's beside them otherwise.
      ...(registration.scheme === 'svc' ? {} : { scheme: registration.scheme, algorithm: registration.algorithm }),
      ...(registration.public_key === null ? {} : { public_key: registration.public_key }),
      created_at: new Date(row.created_at).toISOString(),
      ...disabled,
    };
  }

  private rowByDispatcherId(dispatcherId: string, { deleted }: { deleted: boolean }): Row | undefined {
    const sql = `SELECT * FROM sandbox_webhooks WHERE dispatcher_id = ?${deleted ? '' : ' AND deleted_at IS NULL'}`;
    return this.options.db.prepare(sql).get(dispatcherId) as Row | undefined;
  }

  private proxyTarget(dispatcherId: string): { url: string; headers: Record<string, string> } {
    return { url: `${this.proxyBase}/_sandbox/deliver/${dispatcherId}`, headers: { [PROXY_TOKEN_HEADER]: this.proxyToken } };
  }

  private rows(): Row[] {
    return this.options.db.prepare('SELECT * FROM sandbox_webhooks WHERE deleted_at IS NULL ORDER BY seq').all() as Row[];
  }

  private row(id: string): Row {
    const row = this.options.db.prepare('SELECT * FROM sandbox_webhooks WHERE id = ? AND deleted_at IS NULL').get(id) as Row | undefined;
    if (row === undefined) throw SandboxError.notFound('webhook', id);
    return row;
  }
}

function entryOf(row: Row): WebhookEntry {
  return { id: row.id, dispatcherId: row.dispatcher_id, url: row.url, faults: JSON.parse(row.faults) as Faults };
}


/** The Dispatcher's refusal of a URL or an event list, as the sandbox's VALIDATION_ERROR with a reason that says what is wrong. */
async function asValidation<T>(work: () => Promise<T>, url = ''): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InvalidUrlError) throw SandboxError.validation('url', urlReason(error, url));
    if (!(error instanceof DispatcherError) || error.code === 'NOT_FOUND' || error.code === 'DISPATCHER_CLOSED') throw error;
    const field = typeof error.details.field === 'string' ? error.details.field : '';
    throw SandboxError.validation(field, typeof error.details.reason === 'string' ? error.details.reason : error.message);
  }
}
