import { newNonce, PORTAL_SESSION_MS, signPortalToken, verifyPortalToken, type PortalClaims } from './portal-link.js';

/** The cookie a portal session lives in (HttpOnly, SameSite=Lax, Secure over https, scoped to the portal's path). */
export const PORTAL_SESSION_COOKIE = 'acct_portal_session';

/**
 * The links already opened, until they expire: a link opens one session, once. Kept in the
 * portal's memory, so with several processes behind a load balancer a link could be opened once
 * in each; links are short-lived for that reason.
 */
export class UsedLinks {
  private readonly used = new Map<string, number>();

  /** Marks the link's nonce used; false when it was used already. */
  take(nonce: string, expiresAt: number, now: number): boolean {
    if (this.used.has(nonce)) return false;
    if (this.used.size >= 1024) this.prune(now);
    this.used.set(nonce, expiresAt);
    return true;
  }

  private prune(now: number): void {
    for (const [nonce, expiresAt] of this.used) if (expiresAt <= now) this.used.delete(nonce);
  }
}

/** A session token for the link's business and access, lasting {@link PORTAL_SESSION_MS}. */
export function sessionTokenFor(key: string, link: PortalClaims, now: number): string {
  return signPortalToken(key, { kind: 'session', business_id: link.business_id, access: link.access, path: link.path, expiresAt: now + PORTAL_SESSION_MS, nonce: newNonce() });
}

export function sessionCookie(token: string, path: string, secure: boolean): string {
  return `${PORTAL_SESSION_COOKIE}=${token}; Path=${path}; Max-Age=${PORTAL_SESSION_MS / 1000}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The session of a cookie: signed by the current key, not expired, made for this portal's path. */
export function sessionOf(key: string, token: string | undefined, path: string, now: number): PortalClaims | undefined {
  const claims = verifyPortalToken(key, token, 'session', now);
  return typeof claims === 'object' && claims.path === path ? claims : undefined;
}
