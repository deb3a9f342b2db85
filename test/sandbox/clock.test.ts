import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptReport } from '../../src/dispatcher/attempt-report.js';
import type { WebhookEvent } from '../../src/events/schemas.js';
import { nodeHandler, Webhooks } from '../../src/index.js';
import { createSandbox, type Sandbox, type SandboxOptions, type SandboxWebhookStatusChange } from '../../src/sandbox/index.js';
import { temporaryDirectory } from '../cli/helpers.js';
import { close } from '../helpers/server.js';
import { apiClient, type ApiCall } from './helpers.js';

/*
 * The sandbox clock never breaks a receiver. The receiver is the one docs/sandbox.md shows:
 * nodeHandler with its defaults — verification against the wall clock with the 300 s window —
 * and a SQLite store. The sandbox clock moves by days; every delivery is still signed with the
 * wall-clock time of its attempt, so every attempt the receiver gets is verified and handled.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The docs' receiver on a loopback port that can go down and come back on the same port. */
class DocsReceiver {
  readonly handled: WebhookEvent[] = [];
  /** Every answer it gave: a 401 here would be a signature the wall clock refused. */
  readonly statuses: number[] = [];
  /** Requests in flight at once, at most, per event id: a delivery's attempts never overlap. */
  readonly mostInFlightPerEvent = new Map<string, number>();
  secret = '';
  private server: Server | null = null;
  private port = 0;
  private handler: ReturnType<typeof nodeHandler> | null = null;
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly database: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/webhooks`;
  }

  async up(): Promise<void> {
    const handlers = new Webhooks().onAny((event) => {
      this.handled.push(event);
    });
    this.server = createServer((request, response) => {
      this.handler ??= nodeHandler({ secret: this.secret, handlers, database: this.database, logger: false });
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.once('end', () => {
        const id = (JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: string }).id ?? '';
        const now = (this.inFlight.get(id) ?? 0) + 1;
        this.inFlight.set(id, now);
        this.mostInFlightPerEvent.set(id, Math.max(now, this.mostInFlightPerEvent.get(id) ?? 0));
        response.once('finish', () => {
          this.inFlight.set(id, (this.inFlight.get(id) ?? 1) - 1);
          this.statuses.push(response.statusCode);
        });
      });
      this.handler(request, response);
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  async down(): Promise<void> {
    if (this.server !== null) await close(this.server);
    this.server = null;
  }

  async close(): Promise<void> {
    await this.down();
    await this.handler?.receiver.close();
  }

  types(): string[] {
    return this.handled.map((event) => event.type);
  }
}

interface Setup {
  sandbox: Sandbox;
  call: ApiCall;
  receiver: DocsReceiver;
  webhookId: string;
  attempts: AttemptReport[];
  changes: SandboxWebhookStatusChange[];
}

async function start(options: SandboxOptions): Promise<Setup> {
  const directory = temporaryDirectory('acct-sandbox-clock');
  cleanups.push(() => directory.remove());
  const attempts: AttemptReport[] = [];
  const changes: SandboxWebhookStatusChange[] = [];
  const sandbox = await createSandbox({ ...options, onAttempt: (report) => attempts.push(report), onWebhookStatus: (change) => changes.push(change) });
  cleanups.push(() => sandbox.close());
  const receiver = new DocsReceiver(join(directory.path, 'events.db'));
  await receiver.up();
  cleanups.push(() => receiver.close());
  const call = apiClient(sandbox);
  const webhook = await call('POST', '/webhooks', { url: receiver.url, events: ['*'] });
  receiver.secret = webhook.body.data.secret;
  return { sandbox, call, receiver, webhookId: webhook.body.data.id, attempts, changes };
}

/** The attempts of one event's delivery, in the order they were made. */
function attemptsOf(setup: Setup, eventId: string): AttemptReport['attempt'][] {
  return setup.attempts.filter((report) => report.attempt.event_id === eventId).map((report) => report.attempt);
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe.each([
  ['without a seed (the clock follows the wall clock)', {}],
  ['with a seed (a frozen clock)', { seed: 42 }],
])('the sandbox clock and a receiver with default options, %s', (_name, options: SandboxOptions) => {
  it('overdue after 31 days, retries on the schedule, disabled after 72 h of failure, enabled again with the skipped events', async () => {
    const setup = await start(options);
    const { sandbox, call, receiver, webhookId } = setup;

    // An invoice due in 2 days; 31 days later it is overdue, and the receiver verifies and handles it.
    const startedAt = sandbox.now();
    const customer = (await call('POST', '/customers', { name: 'Bäckerei Huber GmbH' })).body.data;
    const dueDate = new Date(sandbox.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const invoice = (await call('POST', '/invoices', { customer_id: customer.id, amount: 11900, currency: 'EUR', due_date: dueDate })).body.data;
    await call('POST', `/invoices/${invoice.id}/send`);
    await sandbox.settle();
    const advanced = await call('POST', '/sandbox/clock', { advance: '31d' });
    expect(advanced.status).toBe(200);
    const overdue = receiver.handled.find((event) => event.type === 'invoice.overdue');
    expect(overdue?.data.object).toMatchObject({ id: invoice.id, status: 'overdue' });
    // created is sandbox time, days after the start; the signature was the wall clock's, or the receiver would have refused it.
    expect(Date.parse(overdue!.created) - startedAt).toBeGreaterThan(2 * 86_400_000);
    expect(receiver.types()).toEqual(['customer.created', 'invoice.created', 'invoice.sent', 'invoice.overdue']);
    expect(receiver.statuses.every((status) => status === 200)).toBe(true);
    expect((await call('GET', `/webhooks/${webhookId}`)).body.data).toEqual({ id: webhookId, url: receiver.url, events: ['*'], status: 'active', created_at: expect.any(String) });

    // The receiver is down: attempts 1, 2 and 3 fail at 0, 1 and 6 minutes of sandbox time.
    await receiver.down();
    const gruber = (await call('POST', '/customers', { name: 'Gruber KG' })).body.data;
    await sandbox.settle();
    await sandbox.advance('1m');
    await sandbox.advance('5m');
    const [event] = setup.attempts.filter((report) => report.attempt.event_type === 'customer.created' && JSON.parse(report.attempt.request_payload).data.object.id === gruber.id);
    const eventId = event!.attempt.event_id;
    const failed = attemptsOf(setup, eventId);
    expect(failed.map((attempt) => [attempt.attempt_number, attempt.error_kind])).toEqual([
      [1, 'connection'],
      [2, 'connection'],
      [3, 'connection'],
    ]);
    // Each due a schedule step after the start of the previous one (a frozen clock: exactly; a running one: plus the milliseconds a step takes).
    const first = Date.parse(failed[0]!.attempted_at);
    expect(Date.parse(failed[1]!.attempted_at) - first).toBeGreaterThanOrEqual(MINUTE);
    expect(Date.parse(failed[2]!.attempted_at) - Date.parse(failed[1]!.attempted_at)).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(Date.parse(failed[2]!.attempted_at) - first).toBeLessThan(7 * MINUTE);

    // Back up: 30 minutes later attempt 4 is delivered, verified and handled.
    await receiver.up();
    await sandbox.advance('30m');
    const fourth = attemptsOf(setup, eventId).at(-1)!;
    expect(fourth).toMatchObject({ attempt_number: 4, response_status: 200, error_kind: null, webhook_id: webhookId, url: receiver.url });
    expect(Date.parse(fourth.attempted_at) - Date.parse(failed[2]!.attempted_at)).toBeGreaterThanOrEqual(30 * MINUTE);
    expect(receiver.handled.filter((handled) => handled.id === eventId)).toHaveLength(1);
    expect((await call('GET', `/webhooks/${webhookId}`)).body.data.status).toBe('active');

    // Down for good: an event a day keeps it failing; past 72 h of sandbox time it is disabled.
    await receiver.down();
    const downSince = sandbox.now();
    for (let day = 0; day < 4 && setup.changes.length === 0; day++) {
      await call('POST', '/customers', { name: `Kunde ${day}` });
      await sandbox.advance('1d');
    }
    expect(setup.changes).toEqual([
      {
        webhook_id: webhookId,
        url: receiver.url,
        status: 'disabled',
        at: expect.any(String),
        disabled_reason: 'failing',
        replayed: null,
        message: expect.stringMatching(/^Disabled: every attempt failed for 72 h of sandbox time \(from .+ to .+\), the platform's disable rule\. New events are kept as skipped; enable it with PATCH \/v1\/webhooks\/wh_\w+ \{"status": "active", "replay_skipped": true\}\.$/),
      },
    ]);
    const disabledAt = Date.parse(setup.changes[0]!.at);
    expect(disabledAt - downSince).toBeGreaterThanOrEqual(72 * HOUR);
    const disabled = (await call('GET', `/webhooks/${webhookId}`)).body.data;
    expect(disabled).toMatchObject({ status: 'disabled', disabled_at: setup.changes[0]!.at, disabled_reason: 'failing', disabled_message: setup.changes[0]!.message });

    // Events while it is disabled are kept as skipped, not sent.
    const skipped = [(await call('POST', '/customers', { name: 'Skipped One' })).body.data.id, (await call('POST', '/customers', { name: 'Skipped Two' })).body.data.id];
    await sandbox.settle();
    expect((await call('GET', `/webhooks/${webhookId}`)).body.data.skipped_events).toBe(2);

    // Enabled again through the API, with the skipped events: they arrive, verified and handled.
    await receiver.up();
    const enabled = await call('PATCH', `/webhooks/${webhookId}`, { status: 'active', replay_skipped: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toEqual({ id: webhookId, url: receiver.url, events: ['*'], status: 'active', created_at: expect.any(String), replayed: 2 });
    await sandbox.settle();
    const handledCustomers = receiver.handled.filter((handled) => handled.type === 'customer.created').map((handled) => (handled.data.object as { id: string }).id);
    expect(handledCustomers).toEqual(expect.arrayContaining(skipped));
    expect(setup.changes.at(-1)).toMatchObject({ webhook_id: webhookId, status: 'active', disabled_reason: null, replayed: 2, message: 'Active again: 2 skipped events queued for delivery.' });

    // Through all of it: no answer but 200 from the receiver (no refused signature), and no two attempts of one delivery at once.
    expect(receiver.statuses.filter((status) => status !== 200)).toEqual([]);
    expect(Math.max(...receiver.mostInFlightPerEvent.values())).toBe(1);
  });
});

describe('a sandbox reopened from its --db file', () => {
  it('signs with the wall clock after a restart, its clock still 31 days ahead: nothing is signed in the future', async () => {
    const directory = temporaryDirectory('acct-sandbox-restart');
    cleanups.push(() => directory.remove());
    const database = join(directory.path, 'sandbox.db');
    const first = await createSandbox({ database });
    await first.advance('31d');
    await first.close();

    const setup = await start({ database });
    expect(setup.sandbox.now() - Date.now()).toBeGreaterThanOrEqual(31 * 86_400_000 - 1_000);
    await setup.call('POST', '/customers', { name: 'Huber' });
    await setup.sandbox.settle();
    expect(setup.receiver.types()).toEqual(['customer.created']);
    expect(setup.receiver.statuses).toEqual([200]);
    expect(Date.parse(setup.receiver.handled[0]!.created) - Date.now()).toBeGreaterThan(30 * 86_400_000);
  });
});
