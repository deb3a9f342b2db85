/**
 * The longest wait a Node.js timer takes (2^31 − 1 ms, about 24.8 days): a longer one fires at
 * once, with a warning. Every option that becomes a timer is bounded by it.
 */
export const MAX_TIMER_MS = 2_147_483_647;
