import { AcctWebhookError } from '../errors.js';
import type { CommandContext } from './context.js';
import { CliError } from './errors.js';
import { SANDBOX_KEY_ENV, type FaultFlags, type SandboxClientOptions } from './sandbox.js';

/** `sandbox clock [--advance 30d]`: prints the sandbox time, after moving it. */
export async function runSandboxClock(context: CommandContext, options: SandboxClientOptions & { advance?: string }): Promise<void> {
  const answer = options.advance === undefined ? await request(context, options, 'GET', '/sandbox/clock') : await request(context, options, 'POST', '/sandbox/clock', { advance: options.advance });
  context.output.line((answer as { now: string }).now);
}

/** `sandbox faults <id> [--drop 2 …]`: prints the webhook's faults, after replacing them when any is given. */
export async function runSandboxFaults(context: CommandContext, options: SandboxClientOptions, webhookId: string, faults: FaultFlags): Promise<void> {
  const path = `/sandbox/webhooks/${encodeURIComponent(webhookId)}/faults`;
  const answer = Object.keys(faults).length === 0 ? await request(context, options, 'GET', path) : await request(context, options, 'PUT', path, faults);
  context.output.json(answer);
}

async function request(context: CommandContext, options: SandboxClientOptions, method: string, path: string, body?: unknown): Promise<unknown> {
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
