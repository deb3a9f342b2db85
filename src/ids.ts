import { randomBytes } from 'node:crypto';

/**
 * A prefixed random id in the platform's style: `evt_`, `wh_`, `dlv_` … followed by 22
 * URL-safe characters (128 bits), so ids are unguessable and never collide in practice.
 */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}
