import type { Dispatcher } from '../platform/node-dispatcher.js';
import type { SandboxClock } from './clock.js';
import type { SandboxEmitter } from './emitter.js';
import type { IdFactory } from './ids.js';
import type { ObjectStore } from './objects.js';
import type { DeliveryPump } from './pump.js';
import type { WebhookRegistry } from './webhook-registry.js';
import type { SandboxPlan } from './http/rate-limit.js';
import { isoString } from '../kernel/iso-string.js';

/** The account the test key belongs to (`GET /v1/me`, every event's `business_id`). */
export interface SandboxAccount {
  user_id: string;
  email: string;
  business: { id: string; name: string; uid_number: string };
  plan: SandboxPlan;
}

/** What every route works with. */
export interface SandboxContext {
  objects: ObjectStore;
  ids: IdFactory;
  clock: SandboxClock;
  emitter: SandboxEmitter;
  dispatcher: Dispatcher;
  pump: DeliveryPump;
  webhooks: WebhookRegistry;
  account: SandboxAccount;
}

/** The sandbox clock's now as the ISO 8601 string records carry. */
export function isoNow(context: Pick<SandboxContext, 'clock'>): string {
  return isoString(context.clock.now());
}

/** A day `days` after an instant, as YYYY-MM-DD. */
export function dateAfter(ms: number, days: number): string {
  return new Date(ms + days * 86_400_000).toISOString().slice(0, 10);
}
