import type { BusinessErasure } from '../../ports/retention.js';
import { PAYLOAD_REMOVED } from '../../ports/retention.js';
import type { SqliteConnection } from './drivers.js';

/** A list of ids as one parameter: read back with json_each. */
const ids = (values: readonly string[]): string => JSON.stringify(values);

/**
 * The delivery log's retention on SQLite (the DispatchStore's pruneDeliveries, removePayloads
 * and eraseBusiness): each call one short IMMEDIATE transaction. Attempts go before their
 * deliveries and deliveries before their events, as the foreign keys are checked per statement.
 */
export function sqliteDispatchRetention(db: SqliteConnection) {
  const sql = {
    webhooksOfBusiness: db.prepare<[string], { id: string; headers: string }>('SELECT id, headers FROM dispatch_webhooks WHERE business_id = ? AND deleted_at IS NULL'),
    // The secret columns are NOT NULL: an empty string signs nothing and is never read again (deleted).
    endDeliveriesOfWebhook: db.prepare<[number, string]>(`UPDATE dispatch_deliveries
      SET status = 'finally_failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ?
      WHERE webhook_id = ? AND status = 'retrying'`),
    eraseWebhook: db.prepare<[string, number, string]>(`UPDATE dispatch_webhooks SET headers = ?, secret = '', previous_secret = NULL, deleted_at = ? WHERE id = ?`),
    pickOver: db.prepare<[number, number], { id: string; event_id: string }>(`SELECT id, event_id FROM dispatch_deliveries
      WHERE status <> 'retrying' AND updated_at < ? ORDER BY updated_at LIMIT ?`),
    deleteAttempts: db.prepare<[string]>(`DELETE FROM dispatch_attempts WHERE delivery_id IN (SELECT value FROM json_each(?))`),
    deleteDeliveries: db.prepare<[string]>(`DELETE FROM dispatch_deliveries WHERE id IN (SELECT value FROM json_each(?))`),
    deleteEvents: db.prepare<[string]>(`DELETE FROM dispatch_events WHERE id IN (SELECT value FROM json_each(?))
      AND NOT EXISTS (SELECT 1 FROM dispatch_deliveries d WHERE d.event_id = dispatch_events.id)
      AND NOT EXISTS (SELECT 1 FROM dispatch_skipped s WHERE s.event_id = dispatch_events.id)`),
    pickKept: db.prepare<[number, number, number], { id: string }>(`SELECT e.id FROM dispatch_events e
      WHERE e.payload_removed_at IS NULL AND e.created_at < ?
        AND NOT EXISTS (SELECT 1 FROM dispatch_deliveries d WHERE d.event_id = e.id AND (d.status = 'retrying' OR d.updated_at >= ?))
        AND NOT EXISTS (SELECT 1 FROM dispatch_skipped s WHERE s.event_id = e.id)
      ORDER BY e.created_at LIMIT ?`),
    removeBodies: db.prepare<[string, string, string]>(`UPDATE dispatch_attempts SET response_body = ?
      WHERE delivery_id IN (SELECT d.id FROM dispatch_deliveries d WHERE d.event_id IN (SELECT value FROM json_each(?)))
        AND response_body IS NOT NULL AND response_body <> ?`),
    removePayloads: db.prepare<[string, number, string]>(`UPDATE dispatch_events SET payload = ?, payload_removed_at = ?
      WHERE id IN (SELECT value FROM json_each(?))`),
    eventsOfBusiness: db.prepare<[string], { id: string }>(`SELECT id FROM dispatch_events WHERE business_id = ?`),
    endDeliveries: db.prepare<[number, string]>(`UPDATE dispatch_deliveries
      SET status = 'finally_failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ?
      WHERE status = 'retrying' AND event_id IN (SELECT value FROM json_each(?))`),
    deleteSkipped: db.prepare<[string]>(`DELETE FROM dispatch_skipped WHERE event_id IN (SELECT value FROM json_each(?))`),
    erasePayloads: db.prepare<[string, number, string]>(`UPDATE dispatch_events SET payload = ?, payload_removed_at = ?
      WHERE payload_removed_at IS NULL AND id IN (SELECT value FROM json_each(?))`),
  };

  const prune = db.transaction((before: number, limit: number): number => {
    const picked = sql.pickOver.all(before, limit);
    if (picked.length === 0) return 0;
    const deliveries = ids(picked.map((row) => row.id));
    sql.deleteAttempts.run(deliveries);
    sql.deleteDeliveries.run(deliveries);
    sql.deleteEvents.run(ids([...new Set(picked.map((row) => row.event_id))]));
    return picked.length;
  });

  const remove = db.transaction((before: number, limit: number, now: number): number => {
    const picked = sql.pickKept.all(before, before, limit);
    if (picked.length === 0) return 0;
    const events = ids(picked.map((row) => row.id));
    sql.removeBodies.run(PAYLOAD_REMOVED, events, PAYLOAD_REMOVED);
    sql.removePayloads.run(PAYLOAD_REMOVED, now, events);
    return picked.length;
  });

  const erase = db.transaction((businessId: string, now: number): BusinessErasure => {
    const events = ids(sql.eventsOfBusiness.all(businessId).map((row) => row.id));
    let deliveriesEnded = sql.endDeliveries.run(now, events).changes;
    sql.deleteSkipped.run(events);
    const attempts = sql.removeBodies.run(PAYLOAD_REMOVED, events, PAYLOAD_REMOVED).changes;
    const webhooks = sql.webhooksOfBusiness.all(businessId);
    for (const webhook of webhooks) {
      const headers = Object.fromEntries(Object.keys(JSON.parse(webhook.headers) as Record<string, string>).map((name) => [name, PAYLOAD_REMOVED]));
      sql.eraseWebhook.run(JSON.stringify(headers), now, webhook.id);
      deliveriesEnded += sql.endDeliveriesOfWebhook.run(now, webhook.id).changes;
    }
    return { events: sql.erasePayloads.run(PAYLOAD_REMOVED, now, events).changes, attempts, deliveriesEnded, webhooks: webhooks.length };
  });

  return {
    pruneDeliveries: (before: number, limit: number) => prune.immediate(before, limit),
    removePayloads: (before: number, limit: number, now: number) => remove.immediate(before, limit, now),
    eraseBusiness: (businessId: string, now: number) => erase.immediate(businessId, now),
  };
}
