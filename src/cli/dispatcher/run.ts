import { Command } from 'commander';
import { importWithOptionalPackages } from '../../kernel/optional-package.js';
import type { CommandContext } from '../context.js';
import { jsonOption } from '../common-options.js';
import { examples } from '../help.js';
import type { Output } from '../output.js';
import { port, positiveInteger } from '../options.js';
import { stopReasonName } from '../stop-requests.js';
import { clockTime } from '../time-format.js';
import type { AttemptView } from './attempt-view.js';
import type * as MetricsServerModule from './metrics-server.js';
import { allowsInsecureUrls, openFromCommand } from './shared.js';

interface RunOptions {
  concurrency?: number;
  metricsPort?: number;
  metricsPerWebhook?: boolean;
  json?: boolean;
}

const MAX_RUN_CONCURRENCY = 1000;

/** `dispatcher run`: the worker, until Ctrl-C; attempts in flight finish before it exits. */
export function runCommand(context: CommandContext): Command {
  return new Command('run')
    .summary('send due deliveries and retry on schedule, until Ctrl-C')
    .description(
      'Runs the dispatcher\'s worker on the database: sends what is due, retries failed deliveries on the schedule ' +
        '(0, 1, 5, 30 min, 2, 8, 24 h), and prints one line per attempt. Ctrl-C (or SIGTERM) stops it gracefully: ' +
        'nothing new is started, attempts in flight finish and are recorded.',
    )
    .option('--concurrency <n>', 'attempts in flight at once (default: 50; 1 per webhook while it fails)', positiveInteger('--concurrency', MAX_RUN_CONCURRENCY))
    .option('--metrics-port <port>', 'serve Prometheus metrics on http://127.0.0.1:<port>/metrics (0: any free port)', port('--metrics-port'))
    .option('--metrics-per-webhook', 'with --metrics-port: a series per webhook too (attempts, failure streak, in flight)')
    .addOption(jsonOption('print one JSON object per attempt'))
    .addHelpText(
      'after',
      examples(['acct-webhook dispatcher run --allow-insecure-urls', 'deliver to local receivers too'], ['acct-webhook dispatcher run --metrics-port 9464', 'and let Prometheus scrape 127.0.0.1:9464/metrics']),
    )
    .action(async function (this: Command, options: RunOptions) {
      const { output } = context;
      // Loaded when the command runs: they bring the dispatcher, which `--help` does not need.
      const [{ attemptView, noticeLogger }, { checkRunTargets }] = await Promise.all([import('./attempt-view.js'), import('./insecure-urls.js')]);
      const show = (view: AttemptView): void => (options.json ? output.jsonLine(view) : output.line(attemptLine(output, view)));
      const metrics = options.metricsPort === undefined ? null : await (await loadMetricsServer()).startMetricsServer(options.metricsPort);
      try {
        const dispatcher = await openFromCommand(this, {
          logger: noticeLogger((message) => output.note(`error: ${message}`)),
          onAttempt: (report) => show(attemptView(report)),
          ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
          ...(metrics === null ? {} : { metrics: { meter: metrics.meter, perWebhook: options.metricsPerWebhook === true } }),
        });
        try {
          await checkRunTargets(dispatcher, allowsInsecureUrls(this));
          await dispatcher.start();
          output.note(`Sending due deliveries from ${dispatcher.settings.database ?? ''}; Ctrl-C to stop.`);
          if (metrics !== null) output.note(`Metrics (Prometheus): ${metrics.url}`);
          const reason = await context.io.stopRequests.wait();
          output.note(`${stopReasonName(reason)}: finishing the attempts in flight…`);
        } finally {
          await dispatcher.close();
        }
      } finally {
        await metrics?.close();
      }
      output.note('Stopped.');
    });
}

/**
 * The OpenTelemetry SDK and its Prometheus exporter: optional peer dependencies of the package,
 * installed by whoever runs `--metrics-port` (the CLI does not bundle them: 2 MB that every
 * install would carry). Missing ones are named in one install command (one line, exit 2), not a
 * crash.
 */
async function loadMetricsServer(): Promise<typeof MetricsServerModule> {
  return importWithOptionalPackages(() => import('./metrics-server.js'), METRICS_PACKAGES, { option: '--metrics-port', feature: '--metrics-port' });
}

/** What `--metrics-port` loads, in the order the install command names them. */
export const METRICS_PACKAGES = ['@opentelemetry/sdk-metrics', '@opentelemetry/exporter-prometheus', '@opentelemetry/api'] as const;

/** `09:41:02  200 delivered  invoice.paid  evt_…  → wh_…  attempt 1, 12 ms` */
function attemptLine(output: Output, attempt: AttemptView): string {
  const status = attempt.status === null ? '---' : String(attempt.status);
  const result = attempt.outcome === 'delivered' ? output.style('green', 'delivered') : output.style('red', attempt.error_kind ?? 'failed');
  const next =
    attempt.outcome === 'delivered' ? '' : attempt.next_attempt_at === null ? `; ${attempt.delivery_status}, no attempts left` : `; next attempt ${attempt.next_attempt_at}`;
  return `${clockTime(attempt.time)}  ${status} ${result}  ${attempt.event_type}  ${attempt.event_id}  → ${attempt.webhook_id}  attempt ${attempt.attempt}${attempt.manual ? ' (manual)' : ''}, ${attempt.ms} ms${next}`;
}
