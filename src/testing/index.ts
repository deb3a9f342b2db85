/**
 * acct-webhook/testing: test events and signed requests for your receiver's tests, and the
 * contract suites for your own store (docs/testing.md). This file only re-exports.
 */
export { createTestEvent, signedHeaders, signedRequest, type SignedHeaders, type SignedHeadersOptions } from './test-events.js';
export type { ContractAssertion, ContractExpect, ContractTestApi, ContractTestBody } from './contract-api.js';
export { describeIdempotencyStore } from './store-contract.js';
export { describeInboxStore } from './inbox-contract.js';
export { describeCatchUpStore } from './catch-up-contract.js';
export { describeDispatchStore, type DispatchStoreFixture } from './dispatch-store-contract.js';
export { describeFairClaims } from './claim-contract.js';
export { describeDeliveryRetention } from './retention-contract.js';
