import { randomBytes } from 'node:crypto';
import { secretsEqual } from './secret-equal.js';

/*
 * CSRF protection without a server-side session (the host app owns sessions): a random token in
 * an HttpOnly, SameSite=Strict cookie, repeated in a hidden field of every form (double submit).
 * Another site can neither read the cookie nor set it, so it cannot make a matching form; a
 * browser that sends an Origin header must also name this host.
 */

export const CSRF_COOKIE = 'acct_dashboard_csrf';
export const CSRF_FIELD = '_csrf';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The token from the request's cookie, when it has a well-formed one. */
export function csrfTokenOf(cookies: ReadonlyMap<string, string>): string | undefined {
  const token = cookies.get(CSRF_COOKIE);
  return token !== undefined && TOKEN.test(token) ? token : undefined;
}

/** The cookie's `Set-Cookie` value; `Secure` when the request came over https (see `cameOverHttps`). */
export function csrfCookie(token: string, path: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${token}; Path=${path}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** Whether a form's token matches the cookie's, compared in constant time on bytes. */
export function csrfTokensMatch(cookieToken: string | undefined, formToken: string | undefined): boolean {
  if (cookieToken === undefined || formToken === undefined) return false;
  return secretsEqual(formToken, cookieToken);
}

/**
 * True when the request's Origin, if it names one, is the host the request went to. An absent
 * or opaque (`null`) origin proves nothing either way; the token decides then.
 */
export function sameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined || origin === 'null') return true;
  if (host === undefined) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** `name=value` pairs of a Cookie header. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const equals = part.indexOf('=');
    if (equals > 0) cookies.set(part.slice(0, equals).trim(), part.slice(equals + 1).trim());
  }
  return cookies;
}
