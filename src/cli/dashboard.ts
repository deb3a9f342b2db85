import { Command } from 'commander';
import type { CommandContext } from './context.js';
import { examples } from './help.js';
import { port } from './options.js';
import type { DashboardCommandOptions } from './dashboard/run.js';
import { portalLinkCommand } from './dashboard/portal-link.js';

export const DEFAULT_DASHBOARD_PORT = 4020;
/** Loopback only by default: the dashboard can send deliveries and rotate secrets. */
export const DEFAULT_DASHBOARD_HOST = '127.0.0.1';

/** `acct-webhook dashboard`: the delivery dashboard over a dispatcher's and a receiver's SQLite files. */
export function dashboardCommand(context: CommandContext): Command {
  return new Command('dashboard')
    .summary("serve the delivery dashboard over a dispatcher's database (and a receiver's)")
    .description(
      "Serves acct-webhook/dashboard for the dispatcher's SQLite file (--db) and/or a receiver's event store (--events-db): " +
        'registrations, the delivery log with filters, retries, test deliveries, handled events and the quarantine. It prints ' +
        'a URL with a one-time token: opening it sets a session cookie for this browser; any request without the token or the ' +
        'cookie gets 401. It does not run the retry schedule (acct-webhook dispatcher run does); manual retries and test ' +
        'deliveries are sent from here. Reprocessing quarantined payloads needs the receiving app itself. Ctrl-C stops it.',
    )
    .option('--db <file>', "the dispatcher's SQLite file (as for acct-webhook dispatcher)")
    .option('--events-db <file>', "a receiver's SQLite event store (sqliteStore / listen --db): handled events and the quarantine")
    .option('-p, --port <port>', `port to listen on; 0 picks a free one (default: ${DEFAULT_DASHBOARD_PORT})`, port('--port'), DEFAULT_DASHBOARD_PORT)
    .option('--host <host>', `address to listen on (default: ${DEFAULT_DASHBOARD_HOST}, this machine only; another prints a warning: plain http crosses the network in clear text)`, DEFAULT_DASHBOARD_HOST)
    .option('--allow-insecure-urls', 'allow plain http registrations to localhost (development)')
    .addHelpText(
      'after',
      examples(
        ['acct-webhook dashboard --db dispatch.db', 'open the printed URL in a browser'],
        ['acct-webhook dashboard --db dispatch.db --events-db webhook-events.db', 'both sides'],
      ),
    )
    .addCommand(portalLinkCommand(context))
    .action(async (options: DashboardCommandOptions) => {
      const { runDashboard } = await import('./dashboard/run.js');
      await runDashboard(context, options);
    });
}
