import type { RawPayload } from '../signing/signature-scheme.js';
import type { VerifiedRequest } from './verify-request.js';

/** A delivery while it is being received. */
export interface Inbound {
  /** performance.now() at the start */
  started: number;
  /** The receiver's clock at the start. */
  receivedAt: number;
  rawBody: RawPayload | undefined;
  verified: VerifiedRequest | undefined;
  /** Set for an event read from the platform's events feed by catch-up (not a webhook delivery). */
  via?: 'catch_up' | undefined;
}
