import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIN_RETENTION_MS, type IdempotencyStore } from '../../src/ports/idempotency-store.js';
import { describeDispatcherOnStore, type ProjectDispatchFixture } from '../dispatcher/dispatcher-on-store.js';
import { describeReplayOnStore } from '../dispatcher/replay-on-store.js';
import { describeReceiverOnInbox } from '../stores/receiver-on-inbox.js';
import {
  describeCatchUpStore as describePublishedCatchUpStore,
  describeDeliveryRetention as describePublishedDeliveryRetention,
  describeDispatchStore as describePublishedDispatchStore,
  describeFairClaims as describePublishedFairClaims,
  describeIdempotencyStore as describePublishedIdempotencyStore,
  describeInboxStore as describePublishedInboxStore,
} from '../../src/testing/index.js';
import { describeReceivedReads } from '../../src/testing/received-reads-contract.js';
import { describeDispatchReads } from '../../src/testing/dispatch-reads-contract.js';

/*
 * The contract suites that acct-webhook/testing publishes, bound to vitest, as this repository
 * runs them on every backend (test/stores/stores.test.ts, test/stores/sqlite/dispatch-store.test.ts and
 * test/stores/postgres/): the same calls a store author makes.
 */

const VITEST = { describe, it, expect, beforeEach, afterEach };

export { closeWhenFinished, type ProjectDispatchFixture as DispatchStoreFixture } from '../dispatcher/dispatcher-on-store.js';

export function describeIdempotencyStore(name: string, create: (options: { retentionMs: number }) => Promise<IdempotencyStore> | IdempotencyStore): void {
  describePublishedIdempotencyStore(VITEST, name, create);
  describePublishedCatchUpStore(VITEST, name, create);
}

/** The published inbox contract, and a receiver in inbox mode on the same store. */
export function describeInboxStore(name: string, create: (options: { retentionMs: number }) => Promise<IdempotencyStore> | IdempotencyStore): void {
  describePublishedInboxStore(VITEST, name, create);
  describeReceiverOnInbox(name, create);
  describeReceivedReads(VITEST, name, () => create({ retentionMs: MIN_RETENTION_MS }));
}

/** The published DispatchStore and retention contracts, and the Dispatcher end to end on the same store. */
export function describeDispatchStore(name: string, create: () => Promise<ProjectDispatchFixture> | ProjectDispatchFixture): void {
  describePublishedDispatchStore(VITEST, name, create);
  describePublishedDeliveryRetention(VITEST, name, create);
  describeDispatcherOnStore(name, create);
  describeReplayOnStore(name, create);
  describeDispatchReads(VITEST, name, create);
}

export function describeFairClaims(name: string, create: () => Promise<ProjectDispatchFixture> | ProjectDispatchFixture): void {
  describePublishedFairClaims(VITEST, name, create);
}
