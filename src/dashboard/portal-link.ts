import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { numberIn, parseOptions } from '../kernel/configuration.js';

/*
 * The portal's links and sessions are HMAC-SHA256 tokens under the portal key: no server-side
 * state but the set of links already used. Each kind signs under its own label, so a session
 * cookie is never a link and a link never a session.
 */

/** What a business may do in the portal: `read` sees everything of its own and changes nothing. */
export type PortalAccess = 'read' | 'manage';

/**
 * How long a link opens the portal after it is made (the link is one-use: once opened it becomes
 * a session of {@link PORTAL_SESSION_MS}). @default 1 hour
 */
export const DEFAULT_PORTAL_LINK_EXPIRES_MS = 3_600_000;
/** The longest link `createPortalLink` makes: 7 days. */
export const MAX_PORTAL_LINK_EXPIRES_MS = 7 * 86_400_000;
/** How long a session lasts once a link was opened: 8 hours; then the business opens a fresh link. */
export const PORTAL_SESSION_MS = 8 * 3_600_000;
/** The shortest portal key: 32 characters (`openssl rand -base64 32` gives 44). */
export const MIN_PORTAL_KEY_LENGTH = 32;

/** What `createPortalLink` takes. */
export interface PortalLinkOptions {
  /** The portal's key (the same string as the portal's `key` option); at least 32 characters. */
  key: string;
  /** The business the link opens the portal for. */
  business_id: string;
  /** @default 'manage' */
  access?: PortalAccess;
  /** @default DEFAULT_PORTAL_LINK_EXPIRES_MS (1 hour) */
  expiresInMs?: number;
  /** Where the portal is mounted, as the browser reaches it: `https://app.example.com/settings/webhooks`. */
  baseUrl: string;
  /** The time the expiry counts from. @default Date.now */
  clock?: () => number;
}

/** What a verified token says. */
export interface PortalClaims {
  kind: 'link' | 'session';
  business_id: string;
  access: PortalAccess;
  /** The base path it was made for (links only: a session cookie is scoped by its `Path`). */
  path: string;
  /** ms since the epoch. */
  expiresAt: number;
  nonce: string;
}

/** Why a token was refused. */
export type PortalTokenProblem = 'invalid' | 'expired';

export const portalKey = z
  .string({ error: 'must be a string' })
  .min(MIN_PORTAL_KEY_LENGTH, { error: `must be at least ${MIN_PORTAL_KEY_LENGTH} characters (openssl rand -base64 32)` });

const businessId = z.string({ error: 'must be a string' }).regex(/^[A-Za-z0-9_-]{1,128}$/, { error: 'must be 1-128 letters, digits, _ or -' });

const linkSchema = z.strictObject({
  key: portalKey,
  business_id: businessId,
  access: z.enum(['read', 'manage'], { error: "must be 'read' or 'manage'" }).optional(),
  expiresInMs: numberIn(1_000, MAX_PORTAL_LINK_EXPIRES_MS, { integer: true }).optional(),
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  clock: z.custom<() => number>((value) => typeof value === 'function', { error: 'must be () => number' }).optional(),
});

/** The query parameter a link carries its token in. */
export const PORTAL_TOKEN_PARAM = 'portal_token';
/** The path below the portal's base that takes a link. */
export const PORTAL_OPEN_PATH = '/open';

/**
 * A URL that opens the portal for one business: a signed, one-use token that expires. Mint it
 * in the platform's own app, after its login, each time a user opens the webhook settings.
 * @throws ConfigurationError (`INVALID_CONFIGURATION`) for a short key, a bad business id, base URL or expiry
 * @example
 * const url = createPortalLink({ key: process.env.PORTAL_KEY!, business_id: 'biz_123', baseUrl: 'https://app.example.com/settings/webhooks' });
 */
export function createPortalLink(options: PortalLinkOptions): string {
  const valid = parseOptions(linkSchema, options, 'createPortalLink');
  const base = new URL(valid.baseUrl);
  const path = base.pathname.replace(/\/+$/, '');
  const expiresAt = (valid.clock ?? Date.now)() + (valid.expiresInMs ?? DEFAULT_PORTAL_LINK_EXPIRES_MS);
  const token = signPortalToken(valid.key, { kind: 'link', business_id: valid.business_id, access: valid.access ?? 'manage', path, expiresAt, nonce: newNonce() });
  const url = new URL(`${base.origin}${path}${PORTAL_OPEN_PATH}`);
  url.searchParams.set(PORTAL_TOKEN_PARAM, token);
  return url.toString();
}

export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** `<kind>.<business>.<access>.<path>.<expiry>.<nonce>.<mac>`, the text fields base64url. */
export function signPortalToken(key: string, claims: PortalClaims): string {
  const body = [claims.kind, b64(claims.business_id), claims.access, b64(claims.path), claims.expiresAt.toString(36), claims.nonce].join('.');
  return `${body}.${mac(key, body)}`;
}

function mac(key: string, body: string): string {
  return createHmac('sha256', key).update(`acct-webhook portal ${body}`).digest('base64url');
}

const TOKEN = /^(link|session)\.([A-Za-z0-9_-]{1,200})\.(read|manage)\.([A-Za-z0-9_-]{0,400})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/**
 * The claims of a token of `kind` signed by `key` and not expired at `now`; the MAC is compared
 * in constant time on its bytes. A token of the other kind, or of another key, is `invalid`.
 */
export function verifyPortalToken(key: string, token: string | undefined, kind: PortalClaims['kind'], now: number): PortalClaims | PortalTokenProblem {
  if (token === undefined || token.length > 900) return 'invalid';
  const parts = TOKEN.exec(token);
  if (!parts || parts[1] !== kind) return 'invalid';
  const body = token.slice(0, token.lastIndexOf('.'));
  const expected = Buffer.from(mac(key, body), 'base64url');
  const given = Buffer.from(parts[7]!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  const expiresAt = Number.parseInt(parts[5]!, 36);
  if (!(expiresAt > now)) return 'expired';
  return {
    kind,
    business_id: Buffer.from(parts[2]!, 'base64url').toString('utf8'),
    access: parts[3] as PortalAccess,
    path: Buffer.from(parts[4]!, 'base64url').toString('utf8'),
    expiresAt,
    nonce: parts[6]!,
  };
}
