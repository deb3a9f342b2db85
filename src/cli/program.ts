import { Command } from 'commander';
import { catalogCommand } from './catalog.js';
import { catchUpCommand } from './catch-up.js';
import { conformanceCommand } from './conformance.js';
import type { CommandContext } from './context.js';
import { dashboardCommand } from './dashboard.js';
import { demoCommand } from './demo.js';
import { dispatcherCommand } from './dispatcher/index.js';
import { examples } from './help.js';
import { inboxCommand } from './inbox/index.js';
import { listenCommand } from './listen.js';
import { replayCommand } from './replay.js';
import { sandboxCommand } from './sandbox.js';
import { signCommand } from './sign.js';
import { triggerCommand } from './trigger.js';
import { verifyCommand } from './verify.js';

export const COMMAND_NAME = 'acct-webhook';

const EXIT_CODES_HELP = `
Exit codes:
  0  ok
  1  a verification or delivery failed (the answer was not 2xx, no answer, an invalid signature)
  2  usage error: unknown event type, missing secret, unreadable file, malformed input, bad option

Secrets: --secret whsec_…, or the WEBHOOK_SECRET environment variable (keeps it out of shell history).
Errors are one line on stderr ending in a stable [CODE]; --verbose adds the stack trace.
`;

/**
 * The command tree. Each command is defined in its own module; their actions load what they
 * need (express, the event catalog, SQLite, the dispatcher) only when they run.
 */
export function createProgram(context: CommandContext): Command {
  const program = new Command(COMMAND_NAME)
    .description('Sign, verify, send, receive and replay the accounting platform\'s webhooks, and run its dispatcher.')
    .version(context.io.version, '-v, --version')
    .option('--verbose', 'print stack traces with errors')
    .addHelpText(
      'after',
      EXIT_CODES_HELP +
        examples(
          ['acct-webhook demo', 'see the whole round trip on this machine'],
          ['acct-webhook listen --port 3000 --secret whsec_…', 'a receiver that shows what arrives'],
          ['acct-webhook trigger invoice.paid --url http://127.0.0.1:3000/webhooks --secret whsec_…', 'send it a signed sample'],
        ) +
        '\nRun acct-webhook <command> --help for the options and examples of each command.\n',
    );
  const commands = [
    demoCommand(context),
    signCommand(context),
    verifyCommand(context),
    triggerCommand(context),
    listenCommand(context),
    replayCommand(context),
    dispatcherCommand(context),
    inboxCommand(context),
    catchUpCommand(context),
    dashboardCommand(context),
    sandboxCommand(context),
    catalogCommand(context),
    conformanceCommand(context),
  ];
  for (const command of commands) program.addCommand(command);
  return program;
}
