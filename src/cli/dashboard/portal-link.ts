import { Command } from 'commander';
import { createPortalLink, DEFAULT_PORTAL_LINK_EXPIRES_MS, MAX_PORTAL_LINK_EXPIRES_MS, type PortalAccess } from '../../dashboard/portal-link.js';
import type { CommandContext } from '../context.js';
import { CliError } from '../errors.js';
import { examples } from '../help.js';
import { duration, httpUrl, nonEmpty, oneOf } from '../options.js';

/** Where `portal-link` reads the portal's key when `--key` is not given. */
export const PORTAL_KEY_ENV = 'ACCT_WEBHOOK_PORTAL_KEY';

interface PortalLinkCommandOptions {
  business: string;
  baseUrl: string;
  expires?: number;
  access: PortalAccess;
  key?: string;
}

/** `acct-webhook dashboard portal-link`: prints a signed, one-use link that opens one business's portal. */
export function portalLinkCommand(context: CommandContext): Command {
  return new Command('portal-link')
    .summary("print a link that opens one business's webhook portal")
    .description(
      `Prints a signed, one-use, expiring link to the portal (acct-webhook/dashboard's portal()) for one business. The key is ` +
        `the portal's \`key\` option, read from ${PORTAL_KEY_ENV} (or --key, which leaves it in the shell's history).`,
    )
    .requiredOption('--business <id>', 'the business the link opens the portal for', nonEmpty('--business'))
    .requiredOption('--base-url <url>', 'where the portal is mounted, as the browser reaches it', httpUrl('--base-url'))
    .option('--expires <duration>', `how long the link opens the portal: 15m, 1h, 2d (default: ${DEFAULT_PORTAL_LINK_EXPIRES_MS / 3_600_000}h, at most 7d)`, duration('--expires', MAX_PORTAL_LINK_EXPIRES_MS))
    .option('--access <access>', 'manage, or read: every action refused (default: manage)', oneOf('--access', ['manage', 'read'] as const), 'manage')
    .option('--key <key>', `the portal's key (default: ${PORTAL_KEY_ENV})`)
    .addHelpText('after', examples([`acct-webhook dashboard portal-link --business biz_123 --expires 1h --base-url https://app.example.com/settings/webhooks/portal`, `a link for one hour, the key in ${PORTAL_KEY_ENV}`]))
    .action((options: PortalLinkCommandOptions) => {
      const key = options.key ?? context.io.env[PORTAL_KEY_ENV];
      if (key === undefined || key === '') throw new CliError('INVALID_OPTION', `No portal key: set ${PORTAL_KEY_ENV} or pass --key`, { option: '--key', env: PORTAL_KEY_ENV });
      context.output.line(
        createPortalLink({ key, business_id: options.business, access: options.access, baseUrl: options.baseUrl, ...(options.expires === undefined ? {} : { expiresInMs: options.expires }) }),
      );
    });
}
