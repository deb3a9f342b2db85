import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { Dispatcher } from '../../src/dispatcher.js';
import { recordingOf } from '../../src/dispatcher/attempt-recording.js';
import { afterAttempt } from '../../src/dispatcher/schedule.js';
import { dashboardNodeHandler } from '../../src/dashboard/index.js';
import { createReceiver, sqliteStore, Webhooks } from '../../src/index.js';
import type { DeliveryStatus } from '../../src/ports/dispatch-statuses.js';
import { sqliteDispatchStore } from '../../src/stores/sqlite/dispatch-store.js';
import { attemptOf, storedEvent, webhook } from '../../src/testing/dispatch-store-contract.js';
import { tempDir } from '../dispatcher/fixtures.js';
import { FakeClock } from '../helpers/clock.js';
import { close, listen } from '../helpers/server.js';
import { BASE, RECEIVER_SECRET } from './fixtures.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** "Now" for the fixture: a Wednesday, half past noon (UTC). */
export const FIXTURE_NOW = Date.UTC(2026, 10, 25, 12, 30, 0);
const LEASE = { owner: 'fixture', until: FIXTURE_NOW + 365 * DAY };

/** What one delivery of the fixture became. */
export interface SeededDelivery {
  id: string;
  webhookId: string;
  createdAt: number;
  status: DeliveryStatus;
  /** Its one attempt's, made when it was created. */
  responseTimeMs: number;
}

/** The outcome of the `index`th delivery of the `hour`th hour: mostly delivered, some retrying, a few finally failed; an outage on day 3. */
function outcomeOf(hour: number, index: number): DeliveryStatus {
  if (hour >= 70 && hour < 76) return index % 2 === 0 ? 'finally_failed' : 'retrying';
  const roll = (hour * 7 + index * 3) % 10;
  return roll < 7 ? 'delivered' : roll < 9 ? 'retrying' : 'finally_failed';
}

/**
 * Seven days of deliveries of two registrations, written through the dispatch store as the
 * dispatcher writes them (an attempt recorded per delivery, at its injected time), then a
 * Dispatcher on that store with the fixture's clock.
 */
export async function seedDeliveries(file: string): Promise<SeededDelivery[]> {
  const store = sqliteDispatchStore(file);
  await store.insertWebhook(webhook('wh_billing', { url: 'https://billing.example/hooks', events: ['*'], created_at: FIXTURE_NOW - 8 * DAY, updated_at: FIXTURE_NOW - 8 * DAY }));
  await store.insertWebhook(webhook('wh_crm', { url: 'https://crm.example/hooks', events: ['invoice.*'], created_at: FIXTURE_NOW - 8 * DAY, updated_at: FIXTURE_NOW - 8 * DAY }));
  const seeded: SeededDelivery[] = [];
  const start = FIXTURE_NOW - 7 * DAY;
  for (let hour = 0; hour < 7 * 24; hour++) {
    const perHour = 1 + ((hour * 5) % 4) + (hour % 24 >= 8 && hour % 24 < 18 ? 2 : 0);
    for (let index = 0; index < perHour; index++) {
      const createdAt = start + hour * HOUR + index * 7 * 60_000 + 1_000;
      if (createdAt >= FIXTURE_NOW) continue;
      const id = `dlv_fixture_${hour}_${index}`;
      const webhookId = index % 3 === 2 ? 'wh_crm' : 'wh_billing';
      await store.insertEvent(storedEvent(`evt_fixture_${hour}_${index}`, createdAt), [{ id, webhook_id: webhookId, next_attempt_at: createdAt }]);
      const [job] = await store.claimDue({ now: createdAt, limit: 1, lease: LEASE });
      if (job?.delivery.id !== id) throw new Error(`claimed ${job?.delivery.id} instead of ${id}`);
      const status = outcomeOf(hour, index);
      const delivered = status === 'delivered';
      const responseTimeMs = 40 + ((hour * 13 + index * 29) % 400);
      const attempt = attemptOf(job, {
        attempted_at: createdAt,
        response_time_ms: responseTimeMs,
        ...(delivered ? { response_status: 200, error_kind: null, error_message: null } : {}),
      });
      const schedule = status === 'finally_failed' ? [0] : [0, 30 * DAY];
      await store.recordAttempt(id, recordingOf(attempt, afterAttempt({ delivered, manual: false, leaseOwner: LEASE.owner, startedAt: createdAt, schedule })));
      seeded.push({ id, webhookId, createdAt, status, responseTimeMs });
    }
  }
  await store.close();
  return seeded;
}

/** What one received event of the fixture became. */
export interface SeededReceipt {
  at: number;
  outcome: 'handled' | 'failed' | 'quarantined';
}

/** Seven days of received events in direct mode: handled, some whose handlers failed, some quarantined. */
export async function seedReceived(file: string): Promise<SeededReceipt[]> {
  const store = sqliteStore(file);
  const seeded: SeededReceipt[] = [];
  const start = FIXTURE_NOW - 7 * DAY;
  for (let hour = 0; hour < 7 * 24; hour++) {
    for (let index = 0; index < 1 + (hour % 3); index++) {
      const at = start + hour * HOUR + index * 11 * 60_000 + 2_000;
      const roll = (hour + index * 5) % 12;
      if (roll === 11) {
        await store.quarantine.put({ reason: 'invalid_payload', event_id: `evt_q_${hour}_${index}`, event_type: 'invoice.paid', error_code: 'VALIDATION_ERROR', error_message: 'data.object.total: expected integer', raw_body: Buffer.from(`{"id":"evt_q_${hour}_${index}"}`), received_at: at });
        seeded.push({ at, outcome: 'quarantined' });
        continue;
      }
      const claimed = await store.claim(`evt_in_${hour}_${index}`, { now: at, leaseMs: 30_000, type: 'invoice.paid' });
      if (claimed.status !== 'claimed') throw new Error('not claimed');
      if (roll === 10) {
        seeded.push({ at, outcome: 'failed' });
        continue;
      }
      await store.complete(`evt_in_${hour}_${index}`, claimed.token, at + 150);
      seeded.push({ at, outcome: 'handled' });
    }
  }
  await store.close();
  return seeded;
}

export interface ChartFixture {
  origin: string;
  dispatcher: Dispatcher;
  deliveries: SeededDelivery[];
  receipts: SeededReceipt[];
  clock: FakeClock;
}

/** The fixture's dispatcher and receiver on their seeded files, the dashboard for both on 127.0.0.1 with the fixture's clock. */
export async function chartFixture(): Promise<ChartFixture> {
  const dir = tempDir();
  const deliveries = await seedDeliveries(join(dir, 'dispatch.db'));
  const receipts = await seedReceived(join(dir, 'events.db'));
  const clock = new FakeClock(FIXTURE_NOW);
  const store = sqliteDispatchStore(join(dir, 'dispatch.db'));
  const dispatcher = new Dispatcher({ store, clock: clock.now, logger: false, allowInsecureUrls: true });
  onTestFinished(async () => {
    await dispatcher.close();
    await store.close();
  });
  const receiver = createReceiver({ secret: RECEIVER_SECRET, handlers: new Webhooks().onAny(() => 'handled'), store: sqliteStore(join(dir, 'events.db')), logger: false, clock: clock.now });
  onTestFinished(() => receiver.close());
  const board = await listen(dashboardNodeHandler({ dispatcher, receiver, authorize: () => true, basePath: BASE, clock: clock.now }));
  onTestFinished(() => close(board.server));
  return { origin: board.url, dispatcher, deliveries, receipts, clock };
}

/** A chart's range as the overview computes it: whole buckets, the last one holding the fixture's now. */
export function fixtureRange(size: number, buckets: number): { from: number; to: number } {
  const to = (Math.floor(FIXTURE_NOW / size) + 1) * size;
  return { from: to - buckets * size, to };
}

/** What the fixture holds per bucket start and status (`"<ms>:<status>"` → count), counted from what was seeded. */
export function expectedDeliveryBuckets(deliveries: readonly SeededDelivery[], size: number, buckets: number): Map<string, number> {
  const { from } = fixtureRange(size, buckets);
  const counts = new Map<string, number>();
  for (const delivery of deliveries) {
    const bucket = Math.floor((delivery.createdAt - from) / size);
    if (bucket < 0 || bucket >= buckets) continue;
    const key = `${from + bucket * size}:${delivery.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
