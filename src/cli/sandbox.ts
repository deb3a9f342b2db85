import { Command } from 'commander';
import type { CommandContext } from './context.js';
import { CliError } from './errors.js';
import { examples } from './help.js';
import { httpUrl, oneOf, port, positiveInteger } from './options.js';
import { DEFAULT_SANDBOX_PORT, DEFAULT_SANDBOX_URL, PLANS, SANDBOX_KEY_ENV, type FaultFlags, type SandboxClientOptions, type SandboxStartOptions } from './sandbox-options.js';
import { MAX_TIMER_MS } from '../kernel/timers.js';
import { DEFAULT_SANDBOX_ACCOUNTS, MAX_SANDBOX_ACCOUNTS } from '../sandbox/account-count.js';

/** `acct-webhook sandbox`: the platform's sandbox on this machine; `sandbox clock` and `sandbox faults` drive a running one. */
export function sandboxCommand(context: CommandContext): Command {
  const command = new Command('sandbox')
    .summary("run the platform's sandbox here: the /v1 API, real events and deliveries, a clock and faults")
    .description(
      "Serves the platform's /v1 API on 127.0.0.1 with test data: webhook management exactly as the platform's document has it, " +
        'customers, invoices, transactions and sandbox helpers (subscriptions, VAT returns, failed payments) whose changes emit ' +
        'the 18 event types through the Dispatcher: real signatures, the 7-attempt schedule, a delivery log. Time-driven events ' +
        'and retries follow the sandbox clock ("sandbox clock --advance 30d"); deliveries are signed with the wall-clock time of each attempt, so ' +
        'receivers with default options accept them. With --seed, ids, values and times are reproducible. ' +
        'Prints the base URL, the test key (with --accounts, every account\'s key and business), the faults in effect and commands to drive it that run as printed, then each attempt and each webhook ' +
        'disabled or enabled again; Ctrl-C stops it.',
    )
    .option('-p, --port <port>', `port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT_SANDBOX_PORT})`, port('--port'), DEFAULT_SANDBOX_PORT)
    .option('--db <file>', 'keep the sandbox in this SQLite file across runs (default: a fresh one each run)')
    .option('--seed <n>', 'reproducible ids, values and times; the clock moves only by a second per change and by advances', seedNumber)
    .option('--api-key <key>', `the first account's test key, sk_test_… (default: a new one, from the seed when given)`, testKey('--api-key'))
    .option('--accounts <n>', `how many accounts, 1 to ${MAX_SANDBOX_ACCOUNTS}, each with its own key, business, data and webhooks; prints every key (default: ${DEFAULT_SANDBOX_ACCOUNTS})`, positiveInteger('--accounts', MAX_SANDBOX_ACCOUNTS))
    .option('--plan <plan>', `the request limit per minute of this plan: ${PLANS.join(', ')} (default: pro)`, oneOf('--plan', PLANS), 'pro')
    .option('--fault <fault>', 'a fault for every new webhook: duplicate, out-of-order=<n>, delay=<ms>, timeout=<n>, drop=<n>; repeatable (default: none)', addFault, {})
    .option('--delivery-timeout-ms <ms>', 'how long the Dispatcher and its fault proxy wait for an answer (default: 30000)', positiveInteger('--delivery-timeout-ms', MAX_TIMER_MS))
    .option('--json', 'print the start-up line, each delivery attempt and each webhook status change as JSON objects')
    .addHelpText(
      'after',
      examples(
        ['acct-webhook sandbox', `the sandbox on ${DEFAULT_SANDBOX_URL}; prints the test key`],
        ['acct-webhook sandbox --seed 42 --db sandbox.db', 'reproducible, kept in a file'],
        ['acct-webhook sandbox --accounts 3', 'three accounts: prints each test key and business; a key sees its own account only'],
        ['acct-webhook sandbox --fault duplicate --fault out-of-order=3', 'every webhook gets each delivery twice, newest first'],
        ['acct-webhook sandbox clock --advance 30d --api-key sk_test_…', 'in another terminal: a month passes (overdue invoices, renewals, retries); the banner prints this command ready to run'],
      ),
    )
    .action(async (options: SandboxStartOptions) => {
      const { runSandbox } = await import('./sandbox-run.js');
      await runSandbox(context, options);
    });
  command.addCommand(clockCommand(context));
  command.addCommand(faultsCommand(context));
  return command;
}

function clockCommand(context: CommandContext): Command {
  return withClientOptions(new Command('clock'))
    .summary('show or advance the clock of a running sandbox')
    .description('Without --advance, prints the sandbox time. With it, moves the clock forward: invoices fall overdue, subscriptions renew and retries run at their own times on the way.')
    .option('--advance <duration>', 'how far: 30d, 2h, 90m, 45s (combinable: 1d12h)')
    .addHelpText(
      'after',
      examples(
        ['acct-webhook sandbox clock --api-key sk_test_…', 'the sandbox time'],
        ['acct-webhook sandbox clock --advance 15d --api-key sk_test_…', 'two weeks later: sent invoices fall overdue, retries run'],
      ),
    )
    .action(async (_options: unknown, command: Command) => {
      const { runSandboxClock } = await import('./sandbox-client.js');
      await runSandboxClock(context, clientOptions<{ advance?: string }>(command));
    });
}

function faultsCommand(context: CommandContext): Command {
  return withClientOptions(new Command('faults'))
    .summary('show, set or clear the faults of a running sandbox')
    .description(
      "With a webhook id: prints its faults; with fault options, replaces them (the options left out are off); with --clear, turns them off. " +
        'Without one: prints the faults of new webhooks and of every webhook; with --clear, turns every fault off, those of webhooks registered later too.',
    )
    .argument('[webhook-id]', 'the wh_… id the sandbox answered')
    .option('--clear', 'turn the faults off: of this webhook, or without an id every fault of the sandbox')
    .option('--duplicate', 'deliver every attempt twice')
    .option('--out-of-order <n>', 'hold attempts until n wait, then send them newest first', positiveInteger('--out-of-order', 20))
    .option('--delay <ms>', 'wait this long before forwarding each attempt', positiveInteger('--delay', 60_000))
    .option('--timeout <n>', "withhold the receiver's answer on the first n attempts of each delivery", positiveInteger('--timeout', 7))
    .option('--drop <n>', 'answer 503 instead of forwarding the first n attempts of each delivery', positiveInteger('--drop', 7))
    .addHelpText(
      'after',
      examples(
        [`acct-webhook sandbox faults wh_… --api-key sk_test_…`, "the webhook's faults"],
        ['acct-webhook sandbox faults wh_… --duplicate --out-of-order 3', `each delivery twice, newest first (${SANDBOX_KEY_ENV} set)`],
        ['acct-webhook sandbox faults --clear', `every fault off (${SANDBOX_KEY_ENV} set)`],
      ),
    )
    .action(async (webhookId: string | undefined, _options: unknown, command: Command) => {
      const { runSandboxFaults } = await import('./sandbox-client.js');
      const options = clientOptions<{ duplicate?: boolean; outOfOrder?: number; delay?: number; timeout?: number; drop?: number; clear?: boolean }>(command);
      const faults: FaultFlags = {
        ...(options.duplicate ? { duplicate: true } : {}),
        ...(options.outOfOrder === undefined ? {} : { out_of_order: { window: options.outOfOrder } }),
        ...(options.delay === undefined ? {} : { delay_ms: options.delay }),
        ...(options.timeout === undefined ? {} : { timeout_first_attempts: options.timeout }),
        ...(options.drop === undefined ? {} : { drop_first_attempts: options.drop }),
      };
      await runSandboxFaults(context, options, webhookId, faults);
    });
}

function withClientOptions(command: Command): Command {
  return command
    .option('--url <url>', `the running sandbox's base URL (default: ${DEFAULT_SANDBOX_URL})`, httpUrl('--url'), DEFAULT_SANDBOX_URL)
    .option('--api-key <key>', `its test key (or set ${SANDBOX_KEY_ENV})`, testKey('--api-key'));
}

/**
 * The subcommand's options, with `--api-key` wherever it was written: commander gives an option
 * that `sandbox` itself also has to `sandbox`, even after the subcommand's name.
 */
function clientOptions<Own>(command: Command): SandboxClientOptions & Own {
  return command.optsWithGlobals<SandboxClientOptions & Own>();
}

function seedNumber(value: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) > 4_294_967_295) throw new CliError('INVALID_OPTION', `--seed must be a whole number from 0 to 4294967295; got "${value}"`, { option: '--seed', value });
  return Number(value);
}

function testKey(option: string): (value: string) => string {
  return (value) => {
    // A live key is never echoed back: it is a real credential.
    if (!/^sk_test_[A-Za-z0-9_]{8,}$/.test(value)) throw new CliError('INVALID_OPTION', `${option} must be a test key: sk_test_ and at least 8 letters or digits`, { option });
    return value;
  };
}

const FAULT_COUNTS = { timeout: ['timeout_first_attempts', 7], drop: ['drop_first_attempts', 7], delay: ['delay_ms', 60_000], 'out-of-order': ['out_of_order', 20] } as const;

/** `--fault duplicate`, `--fault drop=2` …, collected into one faults object. */
export function addFault(spec: string, faults: FaultFlags): FaultFlags {
  if (spec === 'duplicate') return { ...faults, duplicate: true };
  const [name = '', value = ''] = spec.split('=');
  const known = FAULT_COUNTS[name as keyof typeof FAULT_COUNTS];
  const count = Number(value);
  if (known === undefined || !/^\d+$/.test(value) || count < 1 || count > known[1]) {
    throw new CliError('INVALID_OPTION', `--fault must be duplicate, out-of-order=<2-20>, delay=<ms>, timeout=<1-7> or drop=<1-7>; got "${spec}"`, { option: '--fault', value: spec });
  }
  if (known[0] === 'out_of_order') {
    if (count < 2) throw new CliError('INVALID_OPTION', `--fault out-of-order needs a window of 2 to 20; got "${spec}"`, { option: '--fault', value: spec });
    return { ...faults, out_of_order: { window: count } };
  }
  return { ...faults, [known[0]]: count };
}
