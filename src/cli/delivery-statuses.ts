import type { DeliveryStatus } from '../dispatcher/records.js';

/** Keyed by the type, so the compiler notices a status added to the dispatcher and missing here. */
const STATUSES: Readonly<Record<DeliveryStatus, true>> = { delivered: true, retrying: true, finally_failed: true };

/** The platform's delivery states, for `--status`. */
export const DELIVERY_STATUSES = Object.keys(STATUSES) as readonly DeliveryStatus[];

export function isDeliveryStatus(value: unknown): value is DeliveryStatus {
  return typeof value === 'string' && Object.hasOwn(STATUSES, value);
}
