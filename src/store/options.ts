import { ConfigurationError } from '../errors.js';
import { DEFAULT_RETENTION_MS, MIN_RETENTION_MS, type StoreOptions } from './types.js';

export function resolveRetention(options: StoreOptions = {}): number {
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  if (!Number.isFinite(retentionMs) || retentionMs < MIN_RETENTION_MS) {
    throw new ConfigurationError(
      { option: 'retentionMs', reason: `must be at least ${MIN_RETENTION_MS} (35 hours)` },
      'retentionMs must be at least 35 hours: the sender retries for 34.6 hours, and a shorter memory would run a redelivered event twice',
    );
  }
  return retentionMs;
}
