// The dashboard benchmarks' data, written through the stores' own methods (not timed): a
// dispatcher's log of 4 attempts per delivery, one delivery a minute from START, and a receiver's
// events over the 7 days before a given end, in direct mode, through the inbox and quarantined.
import { EVENT_TYPES } from '../../dist/index.js';
import { createTestEvent } from '../../dist/testing.js';

export const ATTEMPTS_PER_DELIVERY = 4;
export const START = Date.UTC(2026, 10, 1);
export const WEBHOOKS = ['wh_bench_a', 'wh_bench_b', 'wh_bench_c'];

/** When the log of `attempts` attempts ends: its last delivery's last attempt. */
export function dispatchEnd(attempts) {
  return START + (attempts / ATTEMPTS_PER_DELIVERY) * 60_000 + ATTEMPTS_PER_DELIVERY * 60_000;
}

/** Fills `store` (ready or not) with `attempts` attempts; returns some event and correlation ids to search for. */
export async function fillDispatchStore(store, attempts) {
  await store.ready();
  for (const id of WEBHOOKS) {
    await store.insertWebhook({
      id, url: `https://${id}.example.com/hooks`, events: ['*'], headers: {}, secret: 'whsec_bench', rate_limit: null, created_at: START, updated_at: START,
      status: 'active', failure_streak: 0, failing_since: null, last_failure_at: null, delivered_streak: 0, disabled_at: null, disabled_reason: null,
      business_id: null, scope: 'platform', scheme: 'svc', algorithm: 'hmac-sha256', public_key: null, previous_secret: null, previous_secret_expires_at: null,
    });
  }
  const deliveries = attempts / ATTEMPTS_PER_DELIVERY;
  const ids = { events: [], correlations: [] };
  for (let first = 0; first < deliveries; first += 500) {
    const batch = [];
    for (let index = first; index < Math.min(deliveries, first + 500); index++) batch.push(oneDelivery(store, index, ids));
    await Promise.all(batch);
  }
  return ids;
}

/** One attempt's answer: mostly delivered at the last one, some 5xx, 4xx and timeouts on the way. */
function answer(delivery, number) {
  const last = number === ATTEMPTS_PER_DELIVERY;
  const kind = delivery % 10;
  if (last && kind < 7) return { status: 200, error: null };
  if (kind === 7) return { status: null, error: 'timeout' };
  if (kind === 8) return { status: 404, error: 'http_status' };
  return { status: 503, error: 'http_status' };
}

async function oneDelivery(store, index, ids) {
  const event = createTestEvent(EVENT_TYPES[index % EVENT_TYPES.length]);
  const created = START + index * 60_000;
  const deliveryId = `dlv_bench_${index}`;
  const webhookId = WEBHOOKS[index % WEBHOOKS.length];
  await store.insertEvent(
    { id: event.id, type: event.type, payload: JSON.stringify(event), correlation_id: event.correlation_id, test: false, created_at: created },
    [{ id: deliveryId, webhook_id: webhookId, next_attempt_at: created }],
  );
  if (index % 997 === 0) {
    ids.events.push(event.id);
    ids.correlations.push(event.correlation_id);
  }
  for (let number = 1; number <= ATTEMPTS_PER_DELIVERY; number++) {
    const { status, error } = answer(index, number);
    const at = created + number * 60_000;
    await store.recordAttempt(deliveryId, (current, health) => {
      const delivered = status !== null && status < 300;
      const finished = delivered || (number === ATTEMPTS_PER_DELIVERY && index % 10 === 9);
      return {
        attempt: {
          id: `att_bench_${index}_${number}`, delivery_id: deliveryId, webhook_id: webhookId, url: `https://${webhookId}.example.com/hooks`,
          event_id: event.id, event_type: event.type, attempt_number: number, attempted_at: at, response_status: status,
          response_time_ms: 40 + ((index * 37 + number * 11) % 900), receiver_ip: '203.0.113.7', correlation_id: event.correlation_id, request_payload: '',
          response_body: status === null ? null : '{"ok":false}', response_body_truncated: false, error_kind: error,
          error_message: error === null ? null : 'bench', manual: false, test: false,
        },
        delivery: {
          ...current,
          status: delivered ? 'delivered' : finished ? 'finally_failed' : 'retrying',
          attempt_count: number,
          automatic_attempt_count: number,
          next_attempt_at: finished ? null : at + 300_000,
          lease_owner: null,
          lease_until: null,
          updated_at: at,
        },
        // The registration's health is not what this benchmark measures: kept as it is.
        health,
        alerts: [],
      };
    });
  }
}


/**
 * Fills a receiver's `store` with `events` events over the 7 days before `end`, newest last: 80 %
 * handled in direct mode, 4 % whose handlers failed (claimed, never completed), 14 % through the
 * inbox (done, a few skipped as stale, a few dead, some still pending) and 2 % quarantined.
 */
export async function fillReceiverStore(store, events, end) {
  await store.ready();
  const span = 7 * 86_400_000;
  const step = Math.floor(span / events);
  const inboxed = [];
  for (let first = 0; first < events; first += 500) {
    const batch = [];
    for (let index = first; index < Math.min(events, first + 500); index++) {
      const at = end - span + index * step;
      const kind = index % 50;
      const id = `evt_bench_in_${index}`;
      const type = EVENT_TYPES[index % EVENT_TYPES.length];
      if (kind === 0) {
        batch.push(store.quarantine.put({ reason: 'invalid_payload', event_id: id, event_type: type, error_code: 'VALIDATION_ERROR', error_message: 'bench', raw_body: Buffer.from(`{"id":"${id}"}`), received_at: at }));
      } else if (kind < 8) {
        inboxed.push(id);
        batch.push(store.inbox.enqueue({ eventId: id, eventType: type, created: at, rawBody: Buffer.from(`{"id":"${id}"}`), headers: { 'content-type': 'application/json' }, verified: { secretIndex: 1, signatureScheme: 'v1' }, receivedAt: at, version: null }));
      } else {
        batch.push((async () => {
          const claimed = await store.claim(id, { now: at, leaseMs: 30_000, type });
          if (claimed.status === 'claimed' && kind > 9) await store.complete(id, claimed.token, at + 50);
        })());
      }
    }
    await Promise.all(batch);
  }
  // The inbox's events run once each: most done, some skipped as stale, some dead; the newest stay pending.
  let run = 0;
  for (;;) {
    const claimed = await store.inbox.claim(end - 3_600_000, 60_000, 500);
    if (claimed.length === 0) break;
    await Promise.all(claimed.map((event) => {
      run += 1;
      if (run % 40 === 0) return store.inbox.fail(event.eventId, event.token, { code: 'HANDLER_FAILED', message: 'Error: bench', retryAt: null });
      return store.inbox.complete(event.eventId, event.token, end - 3_600_000, { stale: run % 25 === 0 });
    }));
  }
  return { inboxed: inboxed.length };
}
