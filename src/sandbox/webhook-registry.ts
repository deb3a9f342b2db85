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
/** Registrations read per page of the Dispatcher's list. */
const REGISTRATION_PAGE = 1000;

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
  /** The business of the account it belongs to. */
  businessId: string;
}

interface Row {
  id: string;
  dispatcher_id: string;
  url: string;
  faults: string;
  created_at: number;
  business_id: string;
}

/** The account a registration is made for and looked up by: its business, and where its ids come from. */
export interface WebhookOwner {
  businessId: string;
  ids: IdFactory;
}

/** One account's registrations: what the `/v1/webhooks` routes of that account's key use. */
export interface AccountWebhooks {
  create(url: string, events: EventPattern[], signing?: { scheme?: WebhookScheme | undefined; algorithm?: SigningAlgorithm | undefined }): Promise<SandboxWebhook & { secret: string }>;
  list(): Promise<SandboxWebhook[]>;
  get(id: string): Promise<SandboxWebhook>;
  update(id: string, change: WebhookChange): Promise<SandboxWebhook & { replayed?: number }>;
  delete(id: string): Promise<void>;
  rotateSecret(id: string, graceMs?: number): Promise<SandboxWebhook & { secret: string }>;
  faultsView(): FaultsView;
  clearFaults(off: Faults): FaultsView;
  setFaults(id: string, faults: Faults): Faults;
  entry(id: string): WebhookEntry;
}

export interface WebhookRegistryOptions {
  db: SqliteConnection;
  dispatcher: Dispatcher;
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
  /** Faults of a new registration, by business: the start's, until the account clears every fault. */
  private readonly defaultFaults = new Map<string, Faults>();

  constructor(private readonly options: WebhookRegistryOptions) {}

  /** The registrations of one account: another account's id is FORBIDDEN, an unknown one NOT_FOUND. */
  of(owner: WebhookOwner): AccountWebhooks {
    return {
      create: (url, events, signing) => this.create(owner, url, events, signing),
      list: () => this.list(owner.businessId),
      get: (id) => this.get(owner.businessId, id),
      update: (id, change) => this.update(owner.businessId, id, change),
      delete: (id) => this.delete(owner.businessId, id),
      rotateSecret: (id, graceMs) => this.rotateSecret(owner.businessId, id, graceMs),
      faultsView: () => this.faultsView(owner.businessId),
      clearFaults: (off) => this.clearFaults(owner.businessId, off),
      setFaults: (id, faults) => this.setFaults(owner.businessId, id, faults),
      entry: (id) => entryOf(this.row(owner.businessId, id)),
    };
  }

  private newFaults(businessId: string): Faults {
    return this.defaultFaults.get(businessId) ?? this.options.defaultFaults;
  }

  /** Is this the header value the Dispatcher sends with every attempt? Compared in constant time. */
  isProxyToken(value: string | string[] | undefined): boolean {
    const given = Buffer.from(typeof value === 'string' ? value : '');
    const expected = Buffer.from(this.proxyToken);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * Points every registration at the proxy of this run (the port may differ from the last run),
   * owned by its account's business (a registration of an older file may have had no owner).
   */
  async useProxy(base: string): Promise<void> {
    this.proxyBase = base;
    for (const row of this.rows()) await this.options.dispatcher.webhooks.update(row.dispatcher_id, { ...this.proxyTarget(row.dispatcher_id), business_id: row.business_id });
  }

  private async create(owner: WebhookOwner, url: string, events: EventPattern[], signing: { scheme?: WebhookScheme | undefined; algorithm?: SigningAlgorithm | undefined } = {}): Promise<SandboxWebhook & { secret: string }> {
    const { dispatcher, db, clock } = this.options;
    const created = await asValidation(
      () => dispatcher.webhooks.create({ business_id: owner.businessId, url, events, ...(signing.scheme === undefined ? {} : { scheme: signing.scheme }), ...(signing.algorithm === undefined ? {} : { algorithm: signing.algorithm }) }),
      url,
    );
    await dispatcher.webhooks.update(created.id, this.proxyTarget(created.id));
    const row: Row = { id: owner.ids.next('wh'), dispatcher_id: created.id, url: created.url, faults: JSON.stringify(this.newFaults(owner.businessId)), created_at: clock.now(), business_id: owner.businessId };
    db.prepare('INSERT INTO sandbox_webhooks (id, dispatcher_id, url, faults, created_at, business_id) VALUES (@id, @dispatcher_id, @url, @faults, @created_at, @business_id)').run(row);
    return { ...this.view(row, created), secret: created.secret };
  }

  private async list(businessId: string): Promise<SandboxWebhook[]> {
    const registrations = new Map<string, WebhookRegistration>();
    for (let cursor: string | null | undefined; cursor !== null; ) {
      const page = await this.options.dispatcher.webhooks.list({ business_id: businessId, limit: REGISTRATION_PAGE, ...(cursor === undefined ? {} : { cursor }) });
      for (const registration of page.data) registrations.set(registration.id, registration);
      cursor = page.next_cursor;
    }
    return this.rows(businessId).flatMap((row) => {
      const registration = registrations.get(row.dispatcher_id);
      return registration === undefined ? [] : [this.view(row, registration)];
    });
  }

  private async get(businessId: string, id: string): Promise<SandboxWebhook> {
    const row = this.row(businessId, id);
    return this.view(row, await this.options.dispatcher.webhooks.get(row.dispatcher_id));
  }

  /**
   * Changes the events and the status. Enabling starts a clean slate (the disable rule counts
   * from the next failure); with `replay_skipped`, the events kept as skipped while it was
   * disabled are queued too, each once, oldest first. The answer has `replayed` when a replay
   * was asked for.
   */
  private async update(businessId: string, id: string, change: WebhookChange): Promise<SandboxWebhook & { replayed?: number }> {
    const row = this.row(businessId, id);
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

  private async delete(businessId: string, id: string): Promise<void> {
    const row = this.row(businessId, id);
    await this.options.dispatcher.webhooks.delete(row.dispatcher_id);
    this.options.db.prepare('UPDATE sandbox_webhooks SET deleted_at = ? WHERE id = ?').run(this.options.clock.now(), id);
  }

  /** A new secret (or key pair); with `graceMs` the previous one keeps signing beside it until then. */
  private async rotateSecret(businessId: string, id: string, graceMs?: number): Promise<SandboxWebhook & { secret: string }> {
    const row = this.row(businessId, id);
    const secret = await asValidation(() => this.options.dispatcher.webhooks.rotateSecret(row.dispatcher_id, graceMs === undefined ? {} : { graceMs }));
    return { ...(await this.get(businessId, id)), secret };
  }

  /** The faults in effect for an account: those its new registrations get, and each live one's. */
  private faultsView(businessId: string): FaultsView {
    return { new_webhooks: this.newFaults(businessId), webhooks: this.rows(businessId).map((row) => ({ webhook_id: row.id, url: row.url, faults: entryOf(row).faults })) };
  }

  /** Turns an account's faults off: those of its live registrations and those its new ones would get. */
  private clearFaults(businessId: string, off: Faults): FaultsView {
    this.defaultFaults.set(businessId, off);
    this.options.db.prepare('UPDATE sandbox_webhooks SET faults = ? WHERE deleted_at IS NULL AND business_id = ?').run(JSON.stringify(off), businessId);
    return this.faultsView(businessId);
  }

  private setFaults(businessId: string, id: string, faults: Faults): Faults {
    this.row(businessId, id);
    this.options.db.prepare('UPDATE sandbox_webhooks SET faults = ? WHERE id = ?').run(JSON.stringify(faults), id);
    return faults;
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

  /** The live registrations, of one business or of every one. */
  private rows(businessId?: string): Row[] {
    if (businessId === undefined) return this.options.db.prepare('SELECT * FROM sandbox_webhooks WHERE deleted_at IS NULL ORDER BY seq').all() as Row[];
    return this.options.db.prepare('SELECT * FROM sandbox_webhooks WHERE deleted_at IS NULL AND business_id = ? ORDER BY seq').all(businessId) as Row[];
  }

  /** A live registration of the business. @throws SandboxError NOT_FOUND; FORBIDDEN when it is another account's */
  private row(businessId: string, id: string): Row {
    const row = this.options.db.prepare('SELECT * FROM sandbox_webhooks WHERE id = ? AND deleted_at IS NULL').get(id) as Row | undefined;
    if (row === undefined) throw SandboxError.notFound('webhook', id);
    if (row.business_id !== businessId) throw SandboxError.forbidden('webhook', id);
    return row;
  }
}

function entryOf(row: Row): WebhookEntry {
  return { id: row.id, dispatcherId: row.dispatcher_id, url: row.url, faults: JSON.parse(row.faults) as Faults, businessId: row.business_id };
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
