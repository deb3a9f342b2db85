import type { Dispatcher } from '../platform/node-dispatcher.js';
import type { EventType } from '../events/catalog.js';
import type { EventObject, PreviousAttributes } from '../events/schemas.js';
import type { IdFactory } from './ids.js';
import type { DeliveryPump } from './pump.js';

export interface EmitterOptions {
  dispatcher: Dispatcher;
  ids: IdFactory;
  pump: DeliveryPump;
  businessId: string;
}

/**
 * Turns a state change into an event through the Dispatcher's public `emit`: the sandbox gives
 * the event and correlation ids (so a seeded run makes the same ones), the Dispatcher stamps
 * `created` from the sandbox clock, validates the event with the receiver's schemas, stores it
 * and queues a delivery for every subscribed webhook.
 */
export class SandboxEmitter {
  constructor(private readonly options: EmitterOptions) {}

  async emit<T extends EventType>(type: T, object: EventObject<T>, previous?: PreviousAttributes<T>): Promise<void> {
    const { dispatcher, ids, pump, businessId } = this.options;
    await dispatcher.emit(type, object, {
      id: ids.next('evt'),
      correlation_id: ids.next('cor'),
      business_id: businessId,
      ...(previous === undefined ? {} : { previous_attributes: previous }),
    });
    pump.kick();
  }
}
