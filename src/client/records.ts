import type { EventPattern, EventType } from '../events/event-types.js';
import type { WebhookEvent } from '../events/schemas.js';

/** A point in time: a Date, an ISO 8601 string or milliseconds since the epoch. */
export type TimeInput = Date | string | number;

/** A webhook registration as the API shows it (the platform document's fields; the sandbox adds the disabled state). */
export interface ApiWebhook {
  id: string;
  url: string;
  events: EventPattern[];
  /** `active`, or `disabled` (by the platform's disable rule, or by you). */
  status: 'active' | 'disabled' | (string & {});
  created_at: string;
  /** While disabled: when (ISO 8601). */
  disabled_at?: string;
  /** While disabled: `failing` (the disable rule) or `manual`. */
  disabled_reason?: string;
  /** While disabled: why, and how to enable it again. */
  disabled_message?: string;
  /** While disabled: how many events were kept as skipped, for a replay. */
  skipped_events?: number;
}

/** A registration as `create` and `rotateSecret` answer it: with its signing secret, shown only then. */
export interface ApiWebhookWithSecret extends ApiWebhook {
  /** `whsec_…`: verify deliveries with it. */
  secret: string;
}

/** What `webhooks.create` sends: the document's `{ url, events }`. */
export interface CreateApiWebhookInput {
  /** https (the sandbox also takes http to 127.0.0.1). */
  url: string;
  /** Event types, groups (`invoice.*`) or `*`. */
  events: readonly EventPattern[];
}

/**
 * What `webhooks.update` sends: the document's `{ events }`; the sandbox (and the Dispatcher's
 * API) also take `status` (`active` enables a disabled webhook) and, with it, `replay_skipped`
 * (send the events kept while it was disabled).
 */
export interface UpdateApiWebhookInput {
  events?: readonly EventPattern[];
  status?: 'active' | 'disabled';
  replay_skipped?: boolean;
}

/** `GET /v1/me`: the user and account the key belongs to. */
export interface ApiMe {
  id: string;
  email: string;
  business: { id: string; name: string; uid_number: string };
  subscription: { plan: string; status: string };
}

/** Which events `events.list` and `events.iterate` return: every criterion given must hold. */
export interface EventListParams {
  /** Event types, groups (`invoice.*`) or `*`. @default every type */
  types?: EventPattern | readonly EventPattern[];
  /** Events created at or after this time. */
  created_after?: TimeInput;
  /** Events created before this time. */
  created_before?: TimeInput;
  /** Events per page, at most 100. @default 20 for `list`, 100 for `iterate` */
  per_page?: number;
  /** A page number (the document's list convention), counted in the filter's events oldest first. Not with `cursor`. */
  page?: number;
  /** The `next_cursor` of a page before: the events after it, also those that arrived since. Not with `page`. */
  cursor?: string;
}

/** The `pagination` of an events page: the document's fields, and the cursor to go on from. */
export interface EventPagination {
  /** The page number; `null` on a page asked for by cursor. */
  page: number | null;
  per_page: number;
  /** Events the filter selects now; `null` on a page asked for by cursor. */
  total_count: number | null;
  total_pages: number | null;
  /**
   * Where the next page starts: the events after this page's last one, those that arrive later
   * included. Always given, also on the last page: keep it to ask again later.
   */
  next_cursor: string;
  /** Whether more events were there when this page was read. */
  has_more: boolean;
}

/** One page of events, oldest first. */
export interface EventPage {
  data: WebhookEvent[];
  pagination: EventPagination;
}

export type { EventType, WebhookEvent };
