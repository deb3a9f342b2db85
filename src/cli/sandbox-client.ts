import { AcctWebhookError } from '../kernel/errors.js';
import type { CommandContext } from './context.js';
import { CliError } from './errors.js';
import { SANDBOX_KEY_ENV, type FaultFlags, type SandboxClientOptions } from './sandbox-options.js';

/** `sandbox clock [--advance 30d]`: prints the sandbox time, after moving it. */
export async function runSandboxClock(context: CommandContext, options: SandboxClientOptions & { advance?: string }): Promise<void> {
  const answer =
    options.advance === undefined ? await sandboxRequest(context, options, 'GET', '/sandbox/clock') : await sandboxRequest(context, options, 'POST', '/sandbox/clock', { advance: options.advance });
  context.output.line((answer as { now: string }).now);
}

/**
 * `sandbox faults [<id>] [--drop 2 … | --clear]`: prints faults, after changing them. With an id:
 * that webhook's (replaced by the fault options given; `--clear` turns them all off). Without:
 * those of new webhooks and of every webhook (`--clear` turns every one off).
 */
export async function runSandboxFaults(context: CommandContext, options: SandboxClientOptions & { clear?: boolean }, webhookId: string | undefined, faults: FaultFlags): Promise<void> {
  const changing = Object.keys(faults).length > 0;
  if (options.clear === true && changing) throw new CliError('INVALID_OPTION', '--clear turns every fault off; give it without --duplicate, --out-of-order, --delay, --timeout or --drop', { option: '--clear' });
  if (webhookId === undefined) {
    if (changing) throw new CliError('INVALID_OPTION', 'Fault options set one webhook\'s faults: name it, as in acct-webhook sandbox faults wh_… --drop 2', { option: Object.keys(faults)[0] });
    context.output.json(await sandboxRequest(context, options, options.clear === true ? 'DELETE' : 'GET', '/sandbox/faults'));
    return;
  }
  const path = `/sandbox/webhooks/${encodeURIComponent(webhookId)}/faults`;
  const answer = options.clear === true || changing ? await sandboxRequest(context, options, 'PUT', path, faults) : await sandboxRequest(context, options, 'GET', path);
  context.output.json(answer);
}

/** One request to a running sandbox with its test key; its `data`, or its refusal as the API's error code. */
export async function sandboxRequest(context: CommandContext, options: SandboxClientOptions, method: string, path: string, body?: unknown): Promise<unknown> {
  const apiKey = options.apiKey ?? context.io.env[SANDBOX_KEY_ENV];
  if (apiKey === undefined || apiKey === '') throw new CliError('INVALID_OPTION', `No test key: pass --api-key sk_test_… or set ${SANDBOX_KEY_ENV}`, { option: '--api-key' });
  const url = `${options.url.replace(/\/$/, '')}${path}`;
  let answer: Response;
  try {
    answer = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'user-agent': context.userAgent },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new CliError('UNREACHABLE', `No sandbox answers at ${options.url}: start one with acct-webhook sandbox`, { url: options.url }, { cause: error });
  }
  const parsed = (await answer.json().catch(() => null)) as { data?: unknown; error?: { code: string; message: string; details: Record<string, unknown> } } | null;
  if (parsed?.error !== undefined) throw new AcctWebhookError(parsed.error.code, parsed.error.message, parsed.error.details);
  if (!answer.ok || parsed === null) throw new CliError('UNREACHABLE', `The sandbox at ${options.url} answered ${answer.status}`, { url: options.url, status: answer.status });
  return parsed.data;
}
