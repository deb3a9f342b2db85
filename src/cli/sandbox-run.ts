import type { AttemptReport } from '../dispatcher/attempt-report.js';
import { ConfigurationError } from '../kernel/errors.js';
import type { Faults } from '../sandbox/faults.js';
import type { SandboxOptions } from '../sandbox/options.js';
import type { SandboxTestAccount } from '../sandbox/accounts.js';
import { createSandbox, type Sandbox } from '../sandbox/sandbox.js';
import type { FaultsView } from '../sandbox/webhook-registry.js';
import type { SandboxWebhookStatusChange } from '../sandbox/webhook-status.js';
import type { CommandContext } from './context.js';
import { CliError } from './errors.js';
import { DEFAULT_SANDBOX_URL, type SandboxStartOptions } from './sandbox-options.js';
import { sandboxRequest } from './sandbox-client.js';
import { shellQuote } from './shell-quote.js';

/**
 * Runs the sandbox until Ctrl-C (or SIGTERM): prints where it is, the faults in effect and
 * commands to drive it that run exactly as printed, then each delivery attempt (naming its
 * webhook) and each webhook disabled or enabled again.
 */
export async function runSandbox(context: CommandContext, options: SandboxStartOptions): Promise<void> {
  const { output } = context;
  const json = options.json === true;
  const sandbox = await startSandbox({
    port: options.port,
    plan: options.plan,
    faults: options.fault,
    onAttempt: (report) => showAttempt(context, report, json),
    onWebhookStatus: (change) => showStatus(context, change, json),
    ...(options.db === undefined ? {} : { database: options.db }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.accounts === undefined ? {} : { accounts: options.accounts }),
    ...(options.deliveryTimeoutMs === undefined ? {} : { deliveryTimeoutMs: options.deliveryTimeoutMs }),
  });
  try {
    const clock = new Date(sandbox.now()).toISOString();
    const faults = (await sandboxRequest(context, { url: sandbox.url, apiKey: sandbox.apiKey }, 'GET', '/sandbox/faults')) as FaultsView;
    if (json) {
      const accounts = sandbox.accounts.map((account) => ({ api_key: account.apiKey, business: account.business }));
      output.jsonLine({ url: sandbox.url, api_key: sandbox.apiKey, accounts, clock, seed: options.seed ?? null, faults });
    } else {
      for (const line of banner(sandbox, options, clock, faults)) output.line(line);
      output.line();
    }
  } catch (error) {
    await sandbox.close();
    throw error;
  }
  await context.io.stopRequests.wait();
  await sandbox.close();
  if (!json) output.note('Stopped.');
}

/**
 * What the sandbox prints at start: where it is, each account's key and business, its clock and
 * faults (the first account's), and commands that run as printed (with the first account's key).
 */
export function banner(
  sandbox: Pick<Sandbox, 'url' | 'apiKey'> & Partial<Pick<Sandbox, 'accounts'>>,
  options: Pick<SandboxStartOptions, 'seed' | 'plan' | 'db'>,
  clock: string,
  faults: FaultsView,
): string[] {
  const client = sandboxClientArguments(sandbox);
  const withFaults = faults.webhooks.filter((webhook) => faultsText(webhook.faults) !== null);
  const accounts = sandbox.accounts ?? [];
  const business = (account: SandboxTestAccount) => `${account.business.name} (${account.business.id}, UID ${account.business.uid_number})`;
  const lines = [
    `Sandbox on ${sandbox.url}`,
    `  Test key:  ${sandbox.apiKey}   (Authorization: Bearer …)`,
    ...(accounts.length === 1 ? [`  Business:  ${business(accounts[0]!)}`] : []),
    ...(accounts.length > 1
      ? [
          `  Accounts:  ${accounts.length}, each key its own data, webhooks and events (another account's id answers 403)`,
          ...accounts.map((account, index) => `    ${index + 1}. ${account.apiKey}  ${business(account)}`),
        ]
      : []),
    `  Clock:     ${clock}${options.seed === undefined ? ', following the wall clock' : `, seed ${options.seed}: moves a second per change`}; deliveries are signed with the wall-clock time`,
    `  Plan:      ${options.plan}; data in ${options.db ?? 'a fresh temporary file'}`,
    `  Faults:    ${faultsText(faults.new_webhooks) ?? 'none'} on new webhooks${withFaults.length === 0 ? '' : `; ${withFaults.map((webhook) => `${webhook.webhook_id}: ${faultsText(webhook.faults)}`).join('; ')}`}`,
    `  Advance the clock:  acct-webhook sandbox clock --advance 1d ${client}`,
  ];
  if (faultsText(faults.new_webhooks) !== null || withFaults.length > 0) lines.push(`  Clear every fault:  acct-webhook sandbox faults --clear ${client}`);
  lines.push('  Ctrl-C to stop.');
  return lines;
}

/** `--api-key …` and, off the default address, `--url …`: what `sandbox clock` and `sandbox faults` need to reach this sandbox. */
function sandboxClientArguments(sandbox: Pick<Sandbox, 'url' | 'apiKey'>): string {
  const url = sandbox.url === DEFAULT_SANDBOX_URL ? [] : ['--url', sandbox.url];
  return [...url, '--api-key', sandbox.apiKey].map(shellQuote).join(' ');
}

/** Faults as `--fault` names them (`drop=2, duplicate`), or null when none is on. */
export function faultsText(faults: Faults): string | null {
  const parts = [
    faults.duplicate ? 'duplicate' : null,
    faults.out_of_order === null ? null : `out-of-order=${faults.out_of_order.window}`,
    faults.delay_ms > 0 ? `delay=${faults.delay_ms}` : null,
    faults.timeout_first_attempts > 0 ? `timeout=${faults.timeout_first_attempts}` : null,
    faults.drop_first_attempts > 0 ? `drop=${faults.drop_first_attempts}` : null,
  ].filter((part) => part !== null);
  return parts.length === 0 ? null : parts.join(', ');
}

/** createSandbox, with a port in use said as `listen` and `dashboard` say it. */
async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  try {
    return await createSandbox(options);
  } catch (error) {
    if (error instanceof ConfigurationError && error.details.option === 'port' && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE') {
      throw new CliError('INVALID_OPTION', `port ${options.port ?? ''} is already in use; pick another with --port`, { option: '--port', port: options.port }, { cause: error });
    }
    throw error;
  }
}

function showAttempt(context: CommandContext, { attempt, delivery }: AttemptReport, json: boolean): void {
  const result = attempt.response_status === null ? (attempt.error_kind ?? 'no answer') : String(attempt.response_status);
  if (json) {
    context.output.jsonLine({
      attempted_at: attempt.attempted_at,
      event_type: attempt.event_type,
      event_id: attempt.event_id,
      webhook_id: attempt.webhook_id,
      url: attempt.url,
      attempt_number: attempt.attempt_number,
      result,
      status: delivery.status,
    });
    return;
  }
  context.output.line(
    `${attempt.attempted_at}  ${attempt.event_type.padEnd(22)} ${attempt.event_id} → ${attempt.webhook_id} ${attempt.url}  attempt ${attempt.attempt_number}: ${result} → ${delivery.status}`,
  );
}

function showStatus(context: CommandContext, change: SandboxWebhookStatusChange, json: boolean): void {
  if (json) {
    context.output.jsonLine({ webhook_status: change });
    return;
  }
  context.output.line(`${change.at}  webhook ${change.webhook_id} ${change.url}: ${change.message}`);
}
