import type { WebhookResponse } from './answers.js';
import type { ResolvedReceiverOptions } from './options.js';
import type { OutcomeFields } from './outcome.js';
import type { Inbound } from './inbound.js';

/** What the receiver's steps hand each other: the options, and how a delivery ends. */
export interface ReceiverRuntime {
  options: ResolvedReceiverOptions;
  /** The claim's lease: the handler budget and a margin. */
  leaseMs: number;
  /** True when someone takes the report (the log line or `onOutcome`): without, none is built. */
  reporting: boolean;
  /** Reports the delivery (hook and log line) and returns the answer. */
  finish: (response: WebhookResponse, inbound: Inbound, fields: OutcomeFields) => WebhookResponse;
}
