import { Command } from 'commander';
import type { CommandContext } from './context.js';
import { jsonOption, secretOption } from './common-options.js';
import { examples } from './help.js';
import { readBody, STDIN_FILE } from './input.js';
import { httpUrl, requireSecret, unixSeconds } from './options.js';
import { shellQuote } from './shell-quote.js';

interface SignOptions {
  secret?: string;
  timestamp?: number;
  file?: string;
  curl?: string;
  json?: boolean;
}

/**
 * `acct-webhook sign`: the signature headers for a body. Printing the signature is this
 * command's purpose, so it goes to stdout — and nowhere else.
 */
export function signCommand(context: CommandContext): Command {
  return new Command('sign')
    .summary('print the signature headers the platform would send with a body')
    .description(
      'Signs a body the way the platform does: x-svc-signature is the hex HMAC-SHA256 of "<timestamp>.<body>" keyed ' +
        'with the whole whsec_… secret; x-svc-timestamp is Unix seconds. Prints the two headers (or a curl command).',
    )
    .addOption(secretOption())
    .option('--timestamp <seconds>', 'Unix seconds to sign with (default: now)', unixSeconds('--timestamp'))
    .option('-f, --file <path>', `the body, byte for byte (default: stdin; ${STDIN_FILE} for stdin)`)
    .option('--curl <url>', 'print a ready curl command that POSTs the signed body to <url>', httpUrl('--curl'))
    .addOption(jsonOption('print { timestamp, signature, headers } as JSON'))
    .addHelpText(
      'after',
      examples(
        ['acct-webhook sign --secret whsec_… --file event.json', 'the two headers for a body in a file'],
        ['echo -n \'{"id":"evt_1"}\' | WEBHOOK_SECRET=whsec_… acct-webhook sign --timestamp 1763802000', 'stdin, a fixed timestamp, the secret from the environment'],
        ['acct-webhook sign --file event.json --curl http://127.0.0.1:3000/webhooks | sh', 'send it with curl'],
      ),
    )
    .action(async (options: SignOptions) => {
      const secret = requireSecret(options.secret, context.io.env);
      const body = await readBody(context.io, options.file);
      const { signPayload, SECRET_PREFIX } = await import('../signing/signature.js');
      const signed = signPayload({ payload: body, secret, ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }) });
      if (!secret.startsWith(SECRET_PREFIX)) {
        context.output.note(`note: the secret does not start with ${SECRET_PREFIX}; the platform signs with the whole ${SECRET_PREFIX}… string`);
      }
      if (options.json) return context.output.json({ timestamp: signed.timestamp, signature: signed.signature, headers: signed.headers });
      if (options.curl !== undefined) return context.output.line(curlCommand(options.curl, signed.headers, body, options.file));
      context.output.line(`x-svc-timestamp: ${signed.headers['x-svc-timestamp']}`);
      context.output.line(`x-svc-signature: ${signed.headers['x-svc-signature']}`);
    });
}

function curlCommand(url: string, headers: Record<string, string>, body: Buffer, file: string | undefined): string {
  const headerArgs = Object.entries({ 'content-type': 'application/json', ...headers }).map(([name, value]) => `-H ${shellQuote(`${name}: ${value}`)}`);
  const data = file !== undefined && file !== STDIN_FILE ? shellQuote(`@${file}`) : shellQuote(body.toString('utf8'));
  return ['curl -sS -X POST', shellQuote(url), ...headerArgs, '--data-binary', data].join(' ');
}
