import { headerRecord, type HeadersInput } from '../http/headers.js';
import { urlPath } from '../http/path.js';
import { rawBytes, type RawPayload, type WebhookSecret } from '../signing/signature-scheme.js';
import { ReceiverError } from './errors.js';
import { BoundedCache } from './secret-cache.js';
import { deriveKeys, type KeyEngines, type SecretKeys } from './secret-keys.js';

/*
 * The secret chosen per delivery: a receiver for many businesses (a partner app, each of whose
 * webhooks has a secret of its own) is given a function instead of a secret. The function is
 * told the request's path, its headers and the business id its body names — read before the
 * signature is checked, so it only chooses the key: an id that lies picks a secret that does not
 * verify the request. Its answers are kept in a bounded cache, and so are the keys derived from
 * each secret (node:crypto's or WebCrypto's HMAC, Standard Webhooks' decoded keys), so that a
 * delivery of a known business neither calls the function nor imports keys again.
 */

/** What a secret function is told about a delivery, before its signature is checked. */
export interface WebhookSecretRequest {
  /** The request's path as sent, without the query string and a trailing slash (`''` when the request gave no URL). */
  readonly path: string;
  /** The request's headers, lower-case names; a repeated header's values joined with `", "`. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The body's `business_id` (a non-empty string of at most 256 characters), or `undefined` when
   * the body has none or is not JSON. Not verified: use it to choose the secret, never to trust
   * the delivery — the signature is checked with what you return.
   */
  readonly businessId: string | undefined;
}

/**
 * The receiver's `secret` as a function: the secret of the delivery's business, or a rotation
 * list (any one verifies), at once or as a promise; `undefined` for a business you do not know
 * (answered `401 UNKNOWN_BUSINESS`). A function that throws, rejects, or takes longer than
 * `secretTimeoutMs` is answered `503 SECRET_UNAVAILABLE`, and the sender retries.
 *
 * @example
 * secret: async ({ businessId }) => (businessId === undefined ? undefined : await secrets.of(businessId))
 */
export type WebhookSecretLookup = (request: WebhookSecretRequest) => WebhookSecret | undefined | PromiseLike<WebhookSecret | undefined>;

/** How many answers of a secret function are kept, and for how long. */
export interface SecretCacheOptions {
  /** At most this many answers (and derived keys) are kept; the least recently used goes first. @default 10_000 */
  maxEntries?: number | undefined;
  /** An answer is asked for again once it is this old (on the receiver's clock). @default 60_000 */
  ttlMs?: number | undefined;
}

/** How long a secret function may take before the delivery is answered 503 `SECRET_UNAVAILABLE`. @default 5_000 */
export const DEFAULT_SECRET_TIMEOUT_MS = 5_000;
/** How many answers of a secret function the receiver keeps. @default 10_000 */
export const DEFAULT_SECRET_CACHE_MAX_ENTRIES = 10_000;
/** How long an answer of a secret function is kept, in milliseconds. @default 60_000 */
export const DEFAULT_SECRET_CACHE_TTL_MS = 60_000;
/** A `business_id` longer than this is not passed on: `businessId` is `undefined`. */
export const MAX_BUSINESS_ID_LENGTH = 256;

/** What the resolver is built from; the receiver's options after defaults. */
export interface SecretLookupSettings {
  lookup: WebhookSecretLookup;
  timeoutMs: number;
  /** Undefined with `secretCache: false`: the function is called for every delivery. */
  cache: { maxEntries: number; ttlMs: number } | undefined;
  /** Whether Standard Webhooks' keys are derived too (a `scheme` other than `'svc'`). */
  withStandard: boolean;
  engines: KeyEngines;
  clock: () => number;
}

/** What a delivery tells the resolver: its URL, its headers, its raw body. */
export interface SecretLookupRequest {
  url: string | undefined;
  headers: HeadersInput;
  rawBody: RawPayload;
}

const decoder = new TextDecoder();

/**
 * Chooses the keys of a delivery through the secret function. Answers `UNKNOWN_BUSINESS` (the
 * function returned `undefined`) and `SECRET_UNAVAILABLE` (it threw, rejected, timed out, or
 * returned what is not a secret) as {@link ReceiverError}s; neither is kept in the cache.
 */
export class SecretResolver {
  private readonly answers: BoundedCache<SecretKeys> | undefined;
  /** The keys derived from each secret list, by the list: another business with the same secret, or a fresh answer with an unchanged secret, imports nothing. */
  private readonly derived: BoundedCache<SecretKeys>;
  /** The lookups under way, by cache key: deliveries of one business arriving together call the function once. */
  private readonly pending = new Map<string, Promise<SecretKeys>>();

  constructor(private readonly settings: SecretLookupSettings) {
    const { cache, clock } = settings;
    this.answers = cache && new BoundedCache(cache.maxEntries, cache.ttlMs, clock);
    this.derived = new BoundedCache(cache?.maxEntries ?? DEFAULT_SECRET_CACHE_MAX_ENTRIES, Number.POSITIVE_INFINITY, clock);
  }

  /** The keys of the delivery's business: at once from the cache (or a function that answers at once), else a promise. */
  keysFor({ url, headers, rawBody }: SecretLookupRequest): SecretKeys | Promise<SecretKeys> {
    const businessId = businessIdOf(rawBody);
    const path = urlPath(url);
    // The cache is keyed by what the function saw of the body and the URL; headers are not in the key.
    const key = JSON.stringify([path, businessId ?? null]);
    const cached = this.answers?.get(key);
    if (cached !== undefined) return cached;
    const pending = this.pending.get(key);
    if (pending !== undefined) return this.inTime(pending, businessId);
    let answer: ReturnType<WebhookSecretLookup>;
    try {
      answer = this.settings.lookup({ path, headers: headerRecord(headers), businessId });
    } catch (error) {
      throw unavailable(businessId, 'threw', 'The secret function threw', error);
    }
    if (!isPromiseLike(answer)) return this.accept(key, answer, businessId);
    const settled = Promise.resolve(answer).then(
      (value) => this.accept(key, value, businessId),
      (error: unknown) => {
        throw unavailable(businessId, 'threw', 'The secret function rejected', error);
      },
    );
    if (this.answers !== undefined) {
      this.pending.set(key, settled);
      const done = () => void this.pending.delete(key);
      settled.then(done, done);
    }
    return this.inTime(settled, businessId);
  }

  /** The keys of what the function answered, kept in the cache; throws for `undefined` and for what is not a secret. */
  private accept(key: string, answer: WebhookSecret | undefined, businessId: string | undefined): SecretKeys {
    if (answer === undefined) {
      const which = businessId === undefined ? 'a delivery whose body names no business_id' : `business ${businessId}`;
      throw new ReceiverError('UNKNOWN_BUSINESS', `No webhook secret is known for ${which}`, { business_id: businessId ?? null });
    }
    const secrets = secretList(answer, businessId);
    const listKey = JSON.stringify(secrets);
    let keys = this.derived.get(listKey);
    if (keys === undefined) {
      try {
        keys = deriveKeys(secrets, this.settings.withStandard, this.settings.engines);
      } catch (error) {
        // The engines' messages name a secret by its position, never by its text.
        throw unavailable(businessId, 'invalid_secret', `The secret function returned a secret Standard Webhooks cannot use: ${(error as Error).message}`, error);
      }
      this.derived.set(listKey, keys);
    }
    this.answers?.set(key, keys);
    return keys;
  }

  /** The lookup, or `SECRET_UNAVAILABLE` once it has taken `timeoutMs`; a late answer still fills the cache. */
  private inTime(work: Promise<SecretKeys>, businessId: string | undefined): Promise<SecretKeys> {
    const { timeoutMs } = this.settings;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(unavailable(businessId, 'timeout', `The secret function did not answer within ${timeoutMs} ms`)), timeoutMs);
      work.then(
        (keys) => {
          clearTimeout(timer);
          resolve(keys);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }
}

/** The body's `business_id`, read without trusting it; `undefined` when absent, not a short string, or the body is not JSON. */
export function businessIdOf(rawBody: RawPayload): string | undefined {
  const bytes = rawBytes(rawBody);
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof bytes === 'string' ? bytes : decoder.decode(bytes));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const id = (parsed as { business_id?: unknown }).business_id;
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_BUSINESS_ID_LENGTH ? id : undefined;
}

/** The function's answer as a list of secrets; what is not a non-empty string or a non-empty list of them is a failure of the lookup. */
function secretList(answer: unknown, businessId: string | undefined): readonly string[] {
  if (typeof answer === 'string' && answer.length > 0) return [answer];
  if (Array.isArray(answer) && answer.length > 0 && answer.every((item) => typeof item === 'string' && item.length > 0)) return answer as string[];
  throw unavailable(businessId, 'invalid_secret', `The secret function returned ${describe(answer)}, not a whsec_… secret or a non-empty list of them`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'an empty string';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list with an item that is not a non-empty string';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function unavailable(businessId: string | undefined, reason: 'threw' | 'timeout' | 'invalid_secret', message: string, cause?: unknown): ReceiverError {
  return new ReceiverError('SECRET_UNAVAILABLE', `${message}; the delivery is answered 503 and the sender retries`, { business_id: businessId ?? null, reason }, cause === undefined ? undefined : { cause });
}

function isPromiseLike(value: unknown): value is PromiseLike<WebhookSecret | undefined> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
