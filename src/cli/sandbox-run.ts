import type { AttemptReport } from '../dispatcher/attempt-report.js';
import { ConfigurationError } from '../errors.js';
import type { SandboxOptions } from '../sandbox/options.js';
import { createSandbox, type Sandbox } from '../sandbox/sandbox.js';
import { CliError } from './errors.js';
import type { CommandContext } from './context.js';
import type { SandboxStartOptions } from './sandbox.js';

/** Runs the sandbox until Ctrl-C (or SIGTERM): prints where it is and each delivery attempt. */
export async function runSandbox(context: CommandContext, options: SandboxStartOptions): Promise<void> {
  const { output } = context;
  const sandbox = await startSandbox({
    port: options.port,
    plan: options.plan,
    faults: options.fault,
    onAttempt: (report) => showAttempt(context, report, options.json === true),
    ...(options.db === undefined ? {} : { database: options.db }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.deliveryTimeoutMs === undefined ? {} : { deliveryTimeoutMs: options.deliveryTimeoutMs }),
  });
  const clock = new Date(sandbox.now()).toISOString();
  if (options.json) {
    output.jsonLine({ url: sandbox.url, api_key: sandbox.apiKey, clock, seed: options.seed ?? null });
  } else {
    output.line(`Sandbox on ${output.style('bold', sandbox.url)}`);
    output.line(`  Test key:  ${sandbox.apiKey}   (Authorization: Bearer …)`);
    output.line(`  Clock:     ${clock}${options.seed === undefined ? ', following the wall clock' : `, seed ${options.seed}: moves a second per change`}; advance it with: acct-webhook sandbox clock --advance 1d`);
    output.line(`  Plan:      ${options.plan}; data in ${options.db ?? 'a fresh temporary file'}`);
    output.line('  Ctrl-C to stop.');
    output.line();
  }
  await context.io.stopRequests.wait();
  await sandbox.close();
  if (!options.json) output.note('Stopped.');
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
    context.output.jsonLine({ attempted_at: attempt.attempted_at, event_type: attempt.event_type, event_id: attempt.event_id, attempt_number: attempt.attempt_number, result, status: delivery.status });
    return;
  }
  context.output.line(`${attempt.attempted_at}  ${attempt.event_type.padEnd(22)} ${attempt.event_id}  attempt ${attempt.attempt_number}: ${result} → ${delivery.status}`);
}
