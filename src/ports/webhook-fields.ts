import type { EventPattern } from '../events/catalog.js';
import type { DisabledReason, SigningAlgorithm, WebhookScheme, WebhookScope, WebhookStatus } from './dispatch-statuses.js';
import { integer, json, number, time, value, type RecordOf, type StoredOf } from './fields.js';

/*
 * The one description of a webhook registration: the stored type (`StoredWebhook`), the public
 * record (`WebhookRegistration`, without the secret), each backend's columns and row codecs, and
 * the dashboard's labels derive from it. The order is the public record's.
 */
export const WEBHOOK_FIELDS = {
  /** `wh_…` */
  id: value<string>(),
  /** The business whose events it receives; `null` for `platform` and `all` scope. */
  business_id: value<string | null>(),
  /** `business` (its own business's events), `platform` (every business's), `all` (1.0's registration without an owner: every business's). */
  scope: value<WebhookScope>(),
  url: value<string>(),
  /** Event types and patterns (`invoice.*`, `*`), as registered. */
  events: json<EventPattern[]>(),
  /** Custom headers sent with every delivery (names in lower case), in the order they are sent. */
  headers: json<Record<string, string>>(),
  /** `active`, or `disabled` (nothing is sent; new events are recorded as skipped). */
  status: value<WebhookStatus>(),
  /** Why it is disabled: `manual` (by `update`), `failing` (by the dispatcher after a stretch of failure); `null` while active. */
  disabled_reason: value<DisabledReason | null>(),
  /** When the status became `disabled`; `null` while active. */
  disabled_at: time<number | null>(),
  /** Failed attempts in a row since the last delivered one (every attempt counts: manual and test ones too). */
  failure_streak: integer(),
  /** The first failed attempt of the current streak; `null` while the streak is 0. */
  failing_since: time<number | null>(),
  /** The latest failed attempt of the current streak; `null` while the streak is 0. */
  last_failure_at: time<number | null>(),
  /** At most this many attempts start per second (bursts up to one second's worth); `null`: no limit. */
  rate_limit: number<number | null>(),
  /** The headers its deliveries are signed with: `svc` (the platform's), `standard-webhooks`, or `both`. */
  scheme: value<WebhookScheme>(),
  /** `hmac-sha256` (a `whsec_` secret) or `ed25519` (a key pair; Standard Webhooks `v1a`). */
  algorithm: value<SigningAlgorithm>(),
  /** The ed25519 public key (`whpk_…`) receivers verify with; `null` for `hmac-sha256`. */
  public_key: value<string | null>(),
  /** After a rotation with a grace period: until when the previous secret (or key) still signs beside the new one; `null` otherwise. */
  previous_secret_expires_at: time<number | null>(),
  created_at: time(),
  updated_at: time(),
  /** The signing secret (`whsec_…`, or the `whsk_…` private key for ed25519): kept, never in the public record. */
  secret: value<string, true>({ internal: true }),
  /** The secret or key a rotation replaced, signing until `previous_secret_expires_at`; `null` when none. */
  previous_secret: value<string | null, true>({ internal: true }),
  /**
   * Delivered attempts in a row since the last failed one, counted up to the per-webhook cap: a
   * claim lets a registration have this many more attempts in flight than `initialInFlight`.
   */
  delivered_streak: integer<number, true>({ internal: true }),
} as const;

/** A registration as a store keeps it: with its secret, times in ms since the epoch. */
export type StoredWebhook = StoredOf<typeof WEBHOOK_FIELDS>;

/** How the dashboard names each field of the public record that it shows as it is. */
export const WEBHOOK_LABELS: { readonly [K in keyof RecordOf<typeof WEBHOOK_FIELDS>]: string } = {
  id: 'Id',
  business_id: 'Business',
  scope: 'Scope',
  url: 'URL',
  events: 'Events',
  headers: 'Custom headers',
  status: 'Status',
  disabled_reason: 'Disabled because',
  disabled_at: 'Disabled at',
  failure_streak: 'Failed in a row',
  failing_since: 'Failing since',
  last_failure_at: 'Last failure',
  rate_limit: 'Rate limit (attempts a second)',
  scheme: 'Signature scheme',
  algorithm: 'Signing algorithm',
  public_key: 'Public key',
  previous_secret_expires_at: 'Previous secret signs until',
  created_at: 'Created',
  updated_at: 'Updated',
};

/** The columns an attempt's record changes: the registration's health. */
export const HEALTH_FIELDS = ['status', 'failure_streak', 'failing_since', 'last_failure_at', 'disabled_at', 'disabled_reason', 'delivered_streak'] as const satisfies readonly (keyof StoredWebhook)[];

/**
 * A registration's health, kept with it and changed in the transaction that records each
 * attempt: the current run of failed attempts, and when it was disabled (by hand or for failing).
 */
export type WebhookHealth = Pick<StoredWebhook, (typeof HEALTH_FIELDS)[number]>;


/** Whether two healths are the same (nothing to write). */
export function sameHealth(a: WebhookHealth, b: WebhookHealth): boolean {
  return HEALTH_FIELDS.every((key) => a[key] === b[key]);
}
