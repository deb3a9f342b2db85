import type { EventPattern, EventType } from '../events/catalog.js';

/** `disabled` keeps the registration and its log; nothing is sent to it until it is active again. */
export type WebhookStatus = 'active' | 'disabled';

/** The states of the platform's document, exactly. A delivery not yet attempted is `retrying`. */
export type DeliveryStatus = 'delivered' | 'retrying' | 'finally_failed';

/**
 * Why an attempt failed. `http_status`: the receiver answered outside 200–299; `redirect`: a 3xx
 * (never followed); `timeout`: no complete answer within `timeoutMs`; `connection`: refused,
 * reset or closed; `dns`: the host did not resolve; `tls`: certificate or handshake failure;
 * `ssrf`: the URL or the address it resolved to is not allowed, refused before connecting.
 */
export type AttemptErrorKind = 'http_status' | 'redirect' | 'timeout' | 'connection' | 'dns' | 'tls' | 'ssrf';

/** A webhook registration as `webhooks.list()` and `webhooks.get()` return it (without the secret). */
export interface WebhookRegistration {
  /** `wh_…` */
  id: string;
  url: string;
  /** Event types and patterns (`invoice.*`, `*`), as registered. */
  events: EventPattern[];
  /** Custom headers sent with every delivery (names in lower case). */
  headers: Record<string, string>;
  status: WebhookStatus;
  created_at: string;
  updated_at: string;
}

/** What `webhooks.create()` returns: the registration and its signing secret (`whsec_…`). */
export interface WebhookWithSecret extends WebhookRegistration {
  secret: string;
}

/** One event sent to one webhook, with its place in the retry schedule. */
export interface Delivery {
  /** `dlv_…` */
  id: string;
  event_id: string;
  event_type: EventType;
  webhook_id: string;
  correlation_id: string;
  status: DeliveryStatus;
  /** Attempts made so far, manual ones included. */
  attempt_count: number;
  /** Attempts made by the schedule; after `schedule.length` failed ones the delivery is `finally_failed`. */
  automatic_attempt_count: number;
  /**
   * When the next automatic attempt is due (ISO 8601); `null` when none is planned. While an
   * attempt is in flight this is the end of its lease: if the worker dies, the attempt is
   * re-sent then.
   */
  next_attempt_at: string | null;
  /** Sent by `sendTest()`. */
  test: boolean;
  created_at: string;
  updated_at: string;
}

/** One row of the delivery log: one HTTP attempt. */
export interface DeliveryAttempt {
  /** `att_…` */
  id: string;
  delivery_id: string;
  webhook_id: string;
  /** The URL the attempt went to (the registration's URL at that time). */
  url: string;
  event_id: string;
  event_type: EventType;
  /** 1 for the first attempt of the delivery, counting manual attempts too. */
  attempt_number: number;
  /** When the attempt started (ISO 8601, from the dispatcher's clock). */
  attempted_at: string;
  /** `null` when no answer came (timeout, connection, TLS, refused URL). */
  response_status: number | null;
  /** Measured wall time from sending to the end of the answer or the failure. */
  response_time_ms: number;
  /** The socket's remote address; `null` when no connection was made. */
  receiver_ip: string | null;
  correlation_id: string;
  /** The exact body sent. */
  request_payload: string;
  /** The answer's body, UTF-8, at most 64 KiB; `null` when there was no answer. */
  response_body: string | null;
  response_body_truncated: boolean;
  /** `null` for a delivered attempt. */
  error_kind: AttemptErrorKind | null;
  error_message: string | null;
  /** Made by `deliveries.retry()`. */
  manual: boolean;
  /** Made for `sendTest()`. */
  test: boolean;
}

/** A delivery with its whole log, oldest attempt first. */
export interface DeliveryDetail extends Delivery {
  attempts: DeliveryAttempt[];
}

/** One line of `deliveries.export()`: an attempt and the current status of its delivery. */
export interface ExportedAttempt extends DeliveryAttempt {
  delivery_status: DeliveryStatus;
}
