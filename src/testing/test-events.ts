import { isEventType, type EventType } from '../events/catalog.js';
import { mergeDeep, type DeepPartial } from '../events/merge.js';
import { sampleEvent } from '../events/sample-event.js';
import type { EventMap } from '../events/schemas.js';
import { ConfigurationError } from '../kernel/errors.js';
import { newId } from '../kernel/ids.js';
import { signPayload, type RawPayload } from '../signing/signature.js';

/**
 * A realistic sample event of the given type (Austrian sample data from the event catalog) with a
 * fresh `evt_test_…` id and `created` = now. `overrides` are deep-merged: objects recursively,
 * arrays and scalars replaced.
 *
 * @example
 * const event = createTestEvent('invoice.paid', { data: { object: { amount: 5000 } } });
 */
export function createTestEvent<T extends EventType>(type: T, overrides?: DeepPartial<EventMap[T]>): EventMap[T] {
  if (!isEventType(type)) {
    throw new ConfigurationError({ option: 'type', reason: `is not an event type: "${String(type)}"` }, `Unknown event type "${String(type)}"`);
  }
  return mergeDeep(sampleEvent(type, { id: newId('evt_test') }), overrides);
}

/** The options of {@link signedHeaders}. */
export interface SignedHeadersOptions {
  /** Unix seconds. @default now */
  timestamp?: number;
}

/** The headers the platform sends with a delivery. */
export interface SignedHeaders {
  'content-type': 'application/json';
  'x-svc-signature': string;
  'x-svc-timestamp': string;
  [header: string]: string;
}

/**
 * The headers the platform sends with `body`: content type, `x-svc-signature`, `x-svc-timestamp`.
 * Sign the exact string or bytes you send.
 *
 * @example
 * const body = JSON.stringify(createTestEvent('invoice.paid'));
 * await fetch(url, { method: 'POST', body, headers: signedHeaders(body, secret) });
 */
export function signedHeaders(body: RawPayload, secret: string, options: SignedHeadersOptions = {}): SignedHeaders {
  const signed = signPayload({ payload: body, secret, ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }) });
  return { 'content-type': 'application/json', ...signed.headers };
}

/**
 * A ready request for an event: its JSON body and the signed headers.
 *
 * @example
 * const { body, headers } = signedRequest(createTestEvent('invoice.paid'), secret);
 * await request(app).post('/webhooks').set(headers).send(body).expect(200);
 */
export function signedRequest(
  event: object,
  secret: string,
  options: SignedHeadersOptions = {},
): { body: string; headers: SignedHeaders } {
  const body = JSON.stringify(event);
  return { body, headers: signedHeaders(body, secret, options) };
}

