import { Command } from 'commander';
import { EXIT_CODES } from './exit-codes.js';
import type { CommandContext } from './context.js';
import { jsonOption, secretOption } from './common-options.js';
import { examples } from './help.js';
import { readBody, STDIN_FILE } from './input.js';
import { positiveNumber, requireSecret } from './options.js';

interface VerifyOptions {
  secret?: string;
  signature: string;
  timestamp: string;
  file?: string;
  tolerance?: number;
  json?: boolean;
}

/** A week: more tolerance than that is not a freshness check any more. */
const MAX_TOLERANCE_SECONDS = 7 * 24 * 3600;

/**
 * `acct-webhook verify`: checks a signature exactly as the receiver does and says which check
 * failed. An invalid signature is the command's answer, not a usage error: exit 1.
 */
export function verifyCommand(context: CommandContext): Command {
  return new Command('verify')
    .summary('check a signature the way the receiver does')
    .description(
      "Verifies x-svc-signature and x-svc-timestamp against a body with the receiver's own check: prints \"valid\", " +
        'or the code and reason of the check that failed (exit 1).',
    )
    .addOption(secretOption())
    .requiredOption('--signature <hex>', 'the x-svc-signature header value')
    .requiredOption('--timestamp <seconds>', 'the x-svc-timestamp header value')
    .option('-f, --file <path>', `the body, byte for byte (default: stdin; ${STDIN_FILE} for stdin)`)
    .option('--tolerance <seconds>', 'how far the timestamp may be from now (default: 300)', positiveNumber('--tolerance', MAX_TOLERANCE_SECONDS))
    .addOption(jsonOption('print { valid, code, message } as JSON'))
    .addHelpText(
      'after',
      examples(
        ['acct-webhook verify --secret whsec_… --signature 5f2b… --timestamp 1763802000 --file body.json', 'is this request authentic?'],
        ['acct-webhook verify --signature "$SIG" --timestamp "$TS" --tolerance 86400 < body.json', 'a captured request from yesterday (WEBHOOK_SECRET set)'],
      ),
    )
    .action(async (options: VerifyOptions) => {
      const secret = requireSecret(options.secret, context.io.env);
      const body = await readBody(context.io, options.file);
      const { verifySignature } = await import('../signing/signature.js');
      const { WebhookVerificationError } = await import('../kernel/errors.js');
      try {
        const verified = verifySignature({
          payload: body,
          signature: options.signature,
          timestamp: options.timestamp,
          secret,
          ...(options.tolerance === undefined ? {} : { toleranceSeconds: options.tolerance }),
        });
        const age = Math.floor(Date.now() / 1000) - verified.timestamp;
        if (options.json) return context.output.json({ valid: true, timestamp: verified.timestamp, ageSeconds: age });
        context.output.line(`valid: the signature matches the body; the timestamp is ${age} s old`);
      } catch (error) {
        if (!(error instanceof WebhookVerificationError) || !options.json) throw error;
        context.output.json({ valid: false, code: error.code, message: error.message });
        context.setExitCode(EXIT_CODES.failure);
      }
    });
}
