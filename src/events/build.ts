import { newId } from '../kernel/ids.js';
import type { EventType } from './catalog.js';
import type { EventMap, EventObject, PreviousAttributes } from './schemas.js';

/** The `api_version` this package writes into the events it builds. */
export const API_VERSION = '2026-11';

export interface BuildEventOptions<T extends EventType> {
  business_id: string;
  previous_attributes?: PreviousAttributes<T>;
  /** @default a new `cor_…` id */
  correlation_id?: string;
  /** @default a new `evt_…` id */
  id?: string;
  /** Milliseconds since the epoch for `created`. @default Date.now() */
  now?: number;
  /** @default API_VERSION */
  api_version?: string;
}

/** Wraps an object into the platform's event envelope. */
export function buildEvent<T extends EventType>(
  type: T,
  object: EventObject<T>,
  options: BuildEventOptions<T>,
): EventMap[T] {
  const data = options.previous_attributes === undefined ? { object } : { object, previous_attributes: options.previous_attributes };
  return {
    id: options.id ?? newId('evt'),
    type,
    created: new Date(options.now ?? Date.now()).toISOString(),
    api_version: options.api_version ?? API_VERSION,
    data,
    business_id: options.business_id,
    correlation_id: options.correlation_id ?? newId('cor'),
  } as unknown as EventMap[T];
}
