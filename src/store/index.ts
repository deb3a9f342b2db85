export { memoryStore } from './memory.js';
export {
  DEFAULT_RETENTION_MS,
  MIN_RETENTION_MS,
  type AtomicEffect,
  type ClaimOptions,
  type ClaimResult,
  type IdempotencyStore,
  type QuarantinedEvent,
  type QuarantineInput,
  type QuarantineReason,
  type QuarantineStore,
  type StoreOptions,
} from './types.js';
