import { pino, type Logger } from 'pino';

/**
 * One delivery as the receiver logged it: every delivery it answers is one pino line with
 * `outcome`, `status`, `code`, `eventId`, `type`, `durationMs` (and `reason` for refusals).
 */
export interface ReceivedDelivery {
  /** ms since the epoch, when the line was written */
  time: number;
  /** `handled`, `duplicate`, `rejected`, `quarantined`, `handler_failed`, `in_progress`, … */
  outcome: string;
  /** The HTTP status answered; absent for refusals before an answer was made. */
  status?: number;
  code?: string;
  eventId?: string;
  type?: string;
  reason?: string;
  durationMs?: number;
}

/** Anything else the receiver logs at warn or above (a legacy signature accepted, a late handler …). */
export interface ReceiverNotice {
  level: 'warn' | 'error';
  message: string;
}

export interface DeliveryLogListener {
  delivery(delivery: ReceivedDelivery): void;
  notice?(notice: ReceiverNotice): void;
}

/** The message of the receiver's one line per delivery. */
const DELIVERY_MESSAGE = 'webhook delivery';
const WARN_LEVEL = 40;
const ERROR_LEVEL = 50;

/**
 * A pino logger for the receiver whose lines are not printed but handed to `listener` as
 * records: the CLI renders deliveries its own way without any extra API in the receiver.
 */
export function deliveryLogger(listener: DeliveryLogListener): Logger {
  return pino({ level: 'info' }, { write: (line: string) => dispatchLine(line, listener) });
}

function dispatchLine(line: string, listener: DeliveryLogListener): void {
  const record = parseLine(line);
  if (record === undefined) return;
  if (record.msg === DELIVERY_MESSAGE && typeof record.outcome === 'string') {
    listener.delivery(toDelivery(record));
  } else if (typeof record.level === 'number' && record.level >= WARN_LEVEL) {
    listener.notice?.({ level: record.level >= ERROR_LEVEL ? 'error' : 'warn', message: typeof record.msg === 'string' ? record.msg : '' });
  }
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function toDelivery(record: Record<string, unknown>): ReceivedDelivery {
  const delivery: ReceivedDelivery = { time: typeof record.time === 'number' ? record.time : Date.now(), outcome: String(record.outcome) };
  if (typeof record.status === 'number') delivery.status = record.status;
  if (typeof record.durationMs === 'number') delivery.durationMs = record.durationMs;
  if (typeof record.code === 'string') delivery.code = record.code;
  if (typeof record.eventId === 'string') delivery.eventId = record.eventId;
  if (typeof record.type === 'string') delivery.type = record.type;
  if (typeof record.reason === 'string') delivery.reason = record.reason;
  return delivery;
}
