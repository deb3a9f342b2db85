import { Command, Option } from 'commander';
import type { ConformanceScheme } from '../catalog/conformance.js';
import { jsonOption, secretOption } from './common-options.js';
import type { CommandContext } from './context.js';
import { isLoopbackHost } from './dashboard/host-warning.js';
import { CliError } from './errors.js';
import type { ConformanceCommandOptions } from './conformance/run.js';
import { examples } from './help.js';
import { httpUrl, oneOf, positiveInteger, requireSecret } from './options.js';

/** The schemes of `--scheme`; the same list as src/catalog/conformance.ts, which the action loads only when it runs. */
const SCHEMES: readonly ConformanceScheme[] = ['svc', 'standard-webhooks'];

/** More than this is not a webhook body any receiver should take: 64 MiB. */
export const MAX_CONFORMANCE_BODY_BYTES = 64 * 1024 * 1024;

/**
 * `acct-webhook conformance <url>`: signed cases sent to a receiver in any language, each answer
 * judged against the platform's contract, and a table of the verdicts. Exit 0 only when every
 * case passes. A load generator: loopback URLs only, unless --allow-remote.
 */
export function conformanceCommand(context: CommandContext): Command {
  return new Command('conformance')
    .summary('check that a receiver (in any language) answers signed deliveries as the contract says')
    .description(
      'Sends the receiver at <url> signed cases, one after the other — a valid delivery, a tampered body, a wrong secret, a ' +
        'stale and a future timestamp, malformed and missing headers, the same event twice, one valid event of each of the ' +
        '18 types and a body over the size limit — and prints a table: each case, the answer the contract expects ' +
        '(2xx, 4xx with the status this package answers, or 413), the answer it got, pass or FAIL. Exit 0 only when every ' +
        'case passes, 1 otherwise. Only loopback URLs (127.0.0.1, ::1, localhost) unless --allow-remote.',
    )
    .argument('<url>', 'where the receiver listens, e.g. http://127.0.0.1:3000/webhooks', httpUrl('<url>'))
    .addOption(secretOption("the receiver's secret: whsec_…; for --scheme standard-webhooks a whsk_… private key checks v1a (the receiver holds the whpk_…)"))
    .addOption(new Option('--scheme <scheme>', `the receiver's signature scheme: ${SCHEMES.join(', ')} (default: svc)`).argParser(oneOf('--scheme', SCHEMES)).default('svc'))
    .option('--allow-remote', 'allow a URL that is not this machine (the run sends about 40 requests, one over the size limit)')
    .option(
      '--max-body-bytes <n>',
      "the receiver's body limit: the oversized case sends one byte more (default: 1048576, 1 MiB, as this package's receiver)",
      positiveInteger('--max-body-bytes', MAX_CONFORMANCE_BODY_BYTES),
    )
    .addOption(jsonOption('print the cases and verdicts as JSON'))
    .addHelpText(
      'after',
      examples(
        ['acct-webhook conformance http://127.0.0.1:8000/webhooks --secret whsec_…', "a receiver of the platform's scheme"],
        ['acct-webhook conformance http://127.0.0.1:8000/hooks --scheme standard-webhooks --secret whsec_…', 'a Standard Webhooks receiver (v1)'],
        ['acct-webhook conformance http://127.0.0.1:8000/webhooks --json | jq \'.cases[] | select(.pass | not)\'', 'only the failed cases'],
      ),
    )
    .action(async (url: string, options: ConformanceCommandOptions) => {
      const secret = requireSecret(options.secret, context.io.env);
      const { hostname } = new URL(url);
      if (options.allowRemote !== true && !isLoopbackHost(hostname)) {
        throw new CliError('REMOTE_URL', `${hostname} is not this machine: conformance sends only to 127.0.0.1, ::1 or localhost unless --allow-remote is given`, {
          host: hostname,
        });
      }
      const { runConformance } = await import('./conformance/run.js');
      context.setExitCode(await runConformance(context, url, { ...options, secret }));
    });
}
