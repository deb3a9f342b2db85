/** `disabled` keeps the registration and its log; nothing is sent to it until it is active again. */
export type WebhookStatus = 'active' | 'disabled';

/**
 * How a registration's deliveries are signed: `svc`, the platform's `x-svc-signature` (hex
 * HMAC-SHA256 of `timestamp.body`); `standard-webhooks`, the `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` headers of Standard Webhooks; `both`, each request carries both sets.
 */
export type WebhookScheme = 'svc' | 'standard-webhooks' | 'both';

/** What a registration signs with: `hmac-sha256` (a `whsec_` secret) or `ed25519` (a `whsk_`/`whpk_` key pair, Standard Webhooks only). */
export type SigningAlgorithm = 'hmac-sha256' | 'ed25519';

/** Every scheme, the default first. */
export const WEBHOOK_SCHEMES: readonly WebhookScheme[] = ['svc', 'standard-webhooks', 'both'];
/** Every signing algorithm, the default first. */
export const SIGNING_ALGORITHMS: readonly SigningAlgorithm[] = ['hmac-sha256', 'ed25519'];

/**
 * Whose events a registration receives: `business`, the events of its own `business_id` only;
 * `platform`, every business's events (an operator's audit sink, created with `scope: 'platform'`);
 * `all`, a registration made without either (as in 1.0, or carried over from a 1.0 database): it
 * receives every business's events like `platform`, with a warning, until it is given an owner.
 */
export type WebhookScope = 'business' | 'platform' | 'all';

/** Why a registration is disabled: `manual` (`update`), `failing` (a stretch of continuous failure, by the dispatcher). */
export type DisabledReason = 'manual' | 'failing';

/** The states of the platform's document, exactly. A delivery not yet attempted is `retrying`. */
export type DeliveryStatus = 'delivered' | 'retrying' | 'finally_failed';

/** Keyed by the type, so the compiler notices a status added to the type and missing here. */
const STATUSES: Readonly<Record<DeliveryStatus, true>> = { delivered: true, retrying: true, finally_failed: true };

/** Every delivery status. */
export const DELIVERY_STATUSES = Object.keys(STATUSES) as readonly DeliveryStatus[];

export function isDeliveryStatus(value: unknown): value is DeliveryStatus {
  return typeof value === 'string' && Object.hasOwn(STATUSES, value);
}

/**
 * Why an attempt failed. `http_status`: the receiver answered outside 200–299; `redirect`: a 3xx
 * (never followed); `timeout`: no complete answer within `timeoutMs`; `connection`: refused,
 * reset or closed; `dns`: the host did not resolve; `tls`: certificate or handshake failure;
 * `ssrf`: the URL or the address it resolved to is not allowed, refused before connecting.
 */
export type AttemptErrorKind = 'http_status' | 'redirect' | 'timeout' | 'connection' | 'dns' | 'tls' | 'ssrf';
