import { describe, expect, it } from 'vitest';
import { verifyPortalToken } from '../../src/dashboard/portal-link.js';
import { runCommand } from './helpers.js';

const KEY = 'cli-portal-key-0123456789abcdefghijklmnop';

describe('acct-webhook dashboard portal-link', () => {
  it('prints a link for the business, with the expiry and access asked for, signed with the key from the environment', async () => {
    const before = Date.now();
    const result = await runCommand(['dashboard', 'portal-link', '--business', 'biz_123', '--expires', '1h', '--access', 'read', '--base-url', 'https://app.example.com/settings/webhooks/'], { env: { ACCT_WEBHOOK_PORTAL_KEY: KEY } });
    expect(result.exitCode).toBe(0);
    const url = new URL(result.stdout.trim());
    expect(url.origin + url.pathname).toBe('https://app.example.com/settings/webhooks/open');
    const claims = verifyPortalToken(KEY, url.searchParams.get('portal_token')!, 'link', Date.now());
    expect(claims).toMatchObject({ business_id: 'biz_123', access: 'read', path: '/settings/webhooks' });
    const { expiresAt } = claims as { expiresAt: number };
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
  });

  it('refuses without a key, and with a key too short to sign with', async () => {
    const args = ['dashboard', 'portal-link', '--business', 'biz_123', '--base-url', 'https://app.example.com/p'];
    const none = await runCommand(args, { env: {} });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('ACCT_WEBHOOK_PORTAL_KEY');
    const short = await runCommand([...args, '--key', 'short'], { env: {} });
    expect(short.exitCode).not.toBe(0);
    expect(short.stderr).toContain('key');
    expect(short.stdout).toBe('');
  });
});
