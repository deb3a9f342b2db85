import type { Dispatcher } from '../platform/node-dispatcher.js';
import type { SandboxClock } from './clock.js';
import type { SandboxEmitter } from './emitter.js';
import type { IdFactory } from './ids.js';
import type { ObjectStore } from './objects.js';
import type { DeliveryPump } from './pump.js';
import type { AccountWebhooks, WebhookRegistry } from './webhook-registry.js';
import type { SandboxPlan } from './http/rate-limit.js';
import { isoString } from '../kernel/iso-string.js';

/** An account of the sandbox, the one a test key belongs to (`GET /v1/me`, its events' `business_id`). */
export interface SandboxAccount {
  user_id: string;
  email: string;
  business: { id: string; name: string; uid_number: string };
  plan: SandboxPlan;
}

/**
 * What every route works with: one account's view (its objects, ids, emitter, webhooks) of what
 * the whole sandbox shares (the clock, the Dispatcher, the pump, the registry).
 */
export interface SandboxContext {
  /** This account's objects. */
  objects: ObjectStore;
  /** This account's ids. */
  ids: IdFactory;
  clock: SandboxClock;
  /** Emits with this account's `business_id`. */
  emitter: SandboxEmitter;
  dispatcher: Dispatcher;
  pump: DeliveryPump;
  /** This account's registrations. */
  webhooks: AccountWebhooks;
  /** Every account's registrations: who owns a Dispatcher id. */
  registry: WebhookRegistry;
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
