import type { ReceiverPlatform } from '../receiver/options.js';
import { nodeHmac } from '../signing/signature.js';
import { openDefaultReceiverStore } from './node-stores.js';

/**
 * The receiver on Node.js: `sqliteStore('./webhook-events.db')` when no store is given, HMACs
 * with node:crypto. acct-webhook/web has its own (src/platform/web.ts).
 */
export const NODE_PLATFORM: ReceiverPlatform = { openDefaultStore: openDefaultReceiverStore, hmac: nodeHmac };
