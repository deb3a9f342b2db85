import { isDeepStrictEqual } from 'node:util';
import { buildEvent } from '../events/build.js';
import { expandEventPattern, type EventType } from '../events/catalog.js';
import { parseEvent } from '../events/parse.js';
import { sampleEvent } from '../events/sample-event.js';
import type { EventObject, PreviousAttributes, WebhookEvent } from '../events/schemas.js';
import { newId } from '../kernel/ids.js';
import { WebhookValidationError } from '../kernel/errors.js';
import { DispatcherError } from './errors.js';
import type { StoredEvent, StoredWebhook } from '../ports/dispatch-store.js';

/** The envelope fields `dispatcher.emit(type, object, options)` adds to the object. */
export interface EmitOptions<T extends EventType> {
  business_id: string;
  previous_attributes?: PreviousAttributes<T>;
  /** @default a new `cor_…` id */
  correlation_id?: string;
  /**
   * The event id. Give your own (e.g. from an outbox row) to make `emit` safe to repeat: the same
   * event emitted again is stored and sent once. @default a new `evt_…` id
   */
  id?: string;
}

/** An event ready to be stored: the exact bytes every webhook will receive, validated. */
export interface PreparedEvent {
  event: WebhookEvent;
  payload: string;
}

/**
 * Validates an envelope by the exact JSON that will be sent, with the receiver's own schemas:
 * what passes here is what a receiver built on this package accepts.
 * @throws WebhookValidationError (`VALIDATION_ERROR`, `UNKNOWN_EVENT_TYPE`)
 */
export function prepareEnvelope(candidate: unknown): PreparedEvent {
  const payload = serialize(candidate);
  return { event: parseEvent(payload), payload };
}

function serialize(candidate: unknown): string {
  try {
    // undefined (or a function) has no JSON; "null" makes parseEvent give its usual answer.
    return JSON.stringify(candidate) ?? 'null';
  } catch (error) {
    throw new WebhookValidationError('VALIDATION_ERROR', `The event cannot be written as JSON: ${(error as Error).message}`, [
      { path: '', message: 'not serialisable as JSON (a BigInt or a circular reference)' },
    ]);
  }
}

/** Builds the envelope of `emit(type, object, options)` with `created` from the clock. */
export function prepareFromParts<T extends EventType>(type: T, object: EventObject<T>, options: EmitOptions<T> | undefined, now: number): PreparedEvent {
  const given = (typeof options === 'object' && options !== null ? options : {}) as Partial<EmitOptions<T>>;
  return prepareEnvelope(
    buildEvent(type, object, {
      business_id: given.business_id as string,
      now,
      ...(given.previous_attributes === undefined ? {} : { previous_attributes: given.previous_attributes }),
      ...(given.correlation_id === undefined ? {} : { correlation_id: given.correlation_id }),
      ...(given.id === undefined ? {} : { id: given.id }),
    }),
  );
}

/**
 * The sample event `sendTest` sends: the first type the webhook subscribes to, with the catalog's
 * sample object and an `evt_test_…` id.
 */
export function prepareTestEvent(webhook: StoredWebhook, now: number): PreparedEvent {
  const type = webhook.events.flatMap(expandEventPattern)[0] ?? 'invoice.paid';
  return prepareEnvelope(sampleEvent(type, { id: newId('evt_test'), now }));
}

/** The webhooks, active or disabled, whose events (types or patterns) include `type`. */
export function subscribers(webhooks: readonly StoredWebhook[], type: EventType): StoredWebhook[] {
  return webhooks.filter((webhook) => webhook.events.some((pattern) => expandEventPattern(pattern).includes(type)));
}

/**
 * An event id that is already stored: the same event again (only `created` may differ) is a
 * repeat and returns the stored one; a different event under the same id is refused.
 * @throws DispatcherError `EVENT_ID_CONFLICT`
 */
export function resolveRepeat(existing: StoredEvent, candidate: PreparedEvent): WebhookEvent {
  const stored = parseEvent(existing.payload);
  const withoutCreated = ({ created: _created, ...rest }: WebhookEvent) => rest;
  if (isDeepStrictEqual(withoutCreated(stored), withoutCreated(candidate.event))) return stored;
  throw new DispatcherError('EVENT_ID_CONFLICT', `Another event with id "${existing.id}" was emitted before`, {
    field: 'id',
    event_id: existing.id,
  });
}
