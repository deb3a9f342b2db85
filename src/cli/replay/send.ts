import { CliError } from '../errors.js';
import { isDelivered, sendSigned } from '../send.js';
import type { ReplayItem } from './select.js';

/**
 * Sent with every replayed request, naming the delivery it replays, so a receiver (or its logs)
 * can tell a replay from the platform's own attempt. Signature and timestamp are new; the body is
 * the original, byte for byte.
 */
export const REPLAY_HEADER = 'x-acct-webhook-replay-of';

export interface ReplayResult {
  item: ReplayItem;
  outcome: 'delivered' | 'failed' | 'unreachable';
  /** null without an answer */
  status: number | null;
  ms: number | null;
  /** The receiver said it had handled the event before. */
  duplicate: boolean;
  /** The error code of the receiver's answer, or why there was none. */
  error: string | null;
}

export interface ReplayTarget {
  url: string;
  secret: string;
  userAgent: string;
}

/** Sends one event again; never throws for the receiver's sake: every way it goes is a result. */
export async function replayOne(target: ReplayTarget, item: ReplayItem): Promise<ReplayResult> {
  try {
    const answer = await sendSigned({
      url: target.url,
      body: item.payload,
      secret: target.secret,
      userAgent: target.userAgent,
      headers: { [REPLAY_HEADER]: item.deliveryId },
    });
    const body = parseBody(answer.body);
    return {
      item,
      outcome: isDelivered(answer.status) ? 'delivered' : 'failed',
      status: answer.status,
      ms: answer.ms,
      duplicate: body?.duplicate === true,
      error: typeof body?.error?.code === 'string' ? body.error.code : null,
    };
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== 'UNREACHABLE') throw error;
    return { item, outcome: 'unreachable', status: null, ms: null, duplicate: false, error: String(error.details.reason) };
  }
}

interface AnswerBody {
  duplicate?: unknown;
  error?: { code?: unknown };
}

function parseBody(text: string): AnswerBody | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
