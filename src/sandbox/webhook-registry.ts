import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Dispatcher } from '../dispatcher/dispatcher.js';
import { DispatcherError } from '../dispatcher/errors.js';
import type { WebhookRegistration } from '../dispatcher/records.js';
import type { EventPattern } from '../events/catalog.js';
import type { SqliteConnection } from '../sqlite/driver.js';
import type { SandboxClock } from './clock.js';
import { SandboxError } from './errors.js';
import type { Faults } from './faults.js';
import type { IdFactory } from './ids.js';

/** The header that tells the fault proxy a request comes from this sandbox's Dispatcher; never forwarded. */
export const PROXY_TOKEN_HEADER = 'x-acct-sandbox-proxy';

/** A registration as the sandbox API shows it: the document's fields, the user's URL. */
export interface SandboxWebhook {
  id: string;
  url: string;
  events: EventPattern[];
  status: string;
  created_at: string;
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
  ids: IdFactory;
  clock: SandboxClock;
  /** Faults of a new registration (the CLI's --fault). */
  defaultFaults: Faults;
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

  constructor(private readonly options: WebhookRegistryOptions) {}

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

  async create(url: string, events: EventPattern[]): Promise<SandboxWebhook & { secret: string }> {
    const { dispatcher, db, ids, clock } = this.options;
    const created = await asValidation(() => dispatcher.webhooks.create({ url, events }));
    await dispatcher.webhooks.update(created.id, this.proxyTarget(created.id));
    const row: Row = { id: ids.next('wh'), dispatcher_id: created.id, url: created.url, faults: JSON.stringify(this.options.defaultFaults), created_at: clock.now() };
    db.prepare('INSERT INTO sandbox_webhooks (id, dispatcher_id, url, faults, created_at) VALUES (@id, @dispatcher_id, @url, @faults, @created_at)').run(row);
    return { ...view(row, created), secret: created.secret };
  }

  async list(): Promise<SandboxWebhook[]> {
    const registrations = new Map((await this.options.dispatcher.webhooks.list()).map((registration) => [registration.id, registration]));
    return this.rows().flatMap((row) => {
      const registration = registrations.get(row.dispatcher_id);
      return registration === undefined ? [] : [view(row, registration)];
    });
  }

  async get(id: string): Promise<SandboxWebhook> {
    const row = this.row(id);
    return view(row, await this.options.dispatcher.webhooks.get(row.dispatcher_id));
  }

  async updateEvents(id: string, events: EventPattern[]): Promise<SandboxWebhook> {
    const row = this.row(id);
    return view(row, await asValidation(() => this.options.dispatcher.webhooks.update(row.dispatcher_id, { events })));
  }

  async delete(id: string): Promise<void> {
    const row = this.row(id);
    await this.options.dispatcher.webhooks.delete(row.dispatcher_id);
    this.options.db.prepare('UPDATE sandbox_webhooks SET deleted_at = ? WHERE id = ?').run(this.options.clock.now(), id);
  }

  async rotateSecret(id: string): Promise<SandboxWebhook & { secret: string }> {
    const row = this.row(id);
    const secret = await this.options.dispatcher.webhooks.rotateSecret(row.dispatcher_id);
    return { ...(await this.get(id)), secret };
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
    const row = this.options.db.prepare('SELECT * FROM sandbox_webhooks WHERE dispatcher_id = ? AND deleted_at IS NULL').get(dispatcherId) as Row | undefined;
    return row === undefined ? undefined : entryOf(row);
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

function view(row: Row, registration: WebhookRegistration): SandboxWebhook {
  return { id: row.id, url: row.url, events: registration.events, status: registration.status, created_at: new Date(row.created_at).toISOString() };
}

/** The Dispatcher's refusal of a URL or an event list, as the sandbox's VALIDATION_ERROR. */
async function asValidation<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DispatcherError) || error.code === 'NOT_FOUND' || error.code === 'DISPATCHER_CLOSED') throw error;
    throw SandboxError.validation(typeof error.details.field === 'string' ? error.details.field : '', error.message);
  }
}
