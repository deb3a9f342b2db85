import { Command } from 'commander';
import type { CommandContext } from './context.js';
import { jsonOption, secretsOption } from './common-options.js';
import { examples } from './help.js';
import { httpUrl, port, requireSecrets } from './options.js';
import type { ListenOptions } from './listen/run.js';

export const DEFAULT_LISTEN_PORT = 3000;
/** Loopback only by default: a development receiver is not for the network. */
export const DEFAULT_LISTEN_HOST = '127.0.0.1';

/** `acct-webhook listen`: a real receiver that shows every delivery. */
export function listenCommand(context: CommandContext): Command {
  return new Command('listen')
    .summary('run a receiver that shows every delivery (and can forward to your app)')
    .description(
      "Runs this package's receiver (nodeHandler): it verifies x-svc-signature, refuses stale timestamps, " +
        'dedupes by event id and acknowledges. Each verified event is printed with its time, type, id and key fields; ' +
        'each refused request with its status and code. With --forward-to, every new verified event is re-signed with ' +
        'the first secret and POSTed to your app; if your app does not answer 2xx, the sender gets 500 and retries. While a ' +
        'secret is being rotated, give --secret twice (the new one first): a delivery signed with either is accepted. Ctrl-C stops it.',
    )
    .option('-p, --port <port>', `port to listen on; 0 picks a free one (default: ${DEFAULT_LISTEN_PORT})`, port('--port'), DEFAULT_LISTEN_PORT)
    .option('--host <host>', `address to listen on (default: ${DEFAULT_LISTEN_HOST}, this machine only)`, DEFAULT_LISTEN_HOST)
    .option('--path <path>', 'the webhook path (default: /webhooks)')
    .addOption(secretsOption('the webhook secret: the whole whsec_… string; repeat it to accept several while rotating'))
    .option('--db <file>', 'remember handled event ids in this SQLite file, across restarts (default: in memory)')
    .option('--forward-to <url>', 'POST each new verified event, re-signed, to your app at this URL', httpUrl('--forward-to'))
    .addOption(jsonOption('print one JSON object per delivery'))
    .addHelpText(
      'after',
      examples(
        ['acct-webhook listen --secret whsec_…', 'receive on http://127.0.0.1:3000/webhooks'],
        ['acct-webhook listen --port 4000 --forward-to http://127.0.0.1:3000/webhooks', 'in front of your app (WEBHOOK_SECRET set)'],
        ['acct-webhook listen --secret whsec_new… --secret whsec_old…', 'while rotating: accept both'],
        ['acct-webhook trigger invoice.paid --url http://127.0.0.1:3000/webhooks', 'in another terminal: send it something'],
      ),
    )
    .action(async (options: ListenOptions) => {
      const secrets = requireSecrets(options.secret, context.io.env);
      const { runListen } = await import('./listen/run.js');
      await runListen(context, options, secrets);
    });
}
