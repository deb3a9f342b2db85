import { EXIT_CODES, type ExitCode } from '../exit-codes.js';
import type { CommandContext } from '../context.js';
import { isDelivered, sendSigned, type SendResult } from '../send.js';
import { bodySources, type TriggerBody } from './bodies.js';

export interface TriggerOptions {
  url: string;
  secret?: string;
  set?: string[];
  file?: string;
  id?: string;
  count: number;
  json?: boolean;
}

interface Sent {
  eventId: string;
  type: string;
  status: number;
  ms: number;
  response: unknown;
}

/**
 * Sends `count` bodies of each selected type, one after the other (a type's repeats together),
 * and prints each answer. A receiver that does not answer at all stops the run (UNREACHABLE);
 * any answer is printed, and the exit code is 1 unless all of them were 2xx.
 */
export async function runTrigger(context: CommandContext, pattern: string | undefined, options: TriggerOptions & { secret: string }): Promise<ExitCode> {
  const sources = await bodySources({
    sets: options.set ?? [],
    ...(pattern === undefined ? {} : { pattern }),
    ...(options.file === undefined ? {} : { file: options.file }),
    ...(options.id === undefined ? {} : { id: options.id }),
  });
  const bodies = sources.flatMap((next) => Array.from({ length: options.count }, () => next));
  const sent: Sent[] = [];
  for (const [index, next] of bodies.entries()) {
    const body = next();
    const result = await sendSigned({ url: options.url, body: body.bytes, secret: options.secret, userAgent: context.userAgent });
    sent.push(toSent(body, result));
    if (!options.json) printAnswer(context, body, result, bodies.length > 1 ? `[${index + 1}/${bodies.length}] ` : '');
  }
  if (options.json) context.output.json({ url: options.url, sent });
  return sent.every((answer) => isDelivered(answer.status)) ? EXIT_CODES.ok : EXIT_CODES.failure;
}

function printAnswer(context: CommandContext, body: TriggerBody, result: SendResult, prefix: string): void {
  const { output } = context;
  const status = `${result.status} ${result.statusText}`.trim();
  const colored = output.style(isDelivered(result.status) ? 'green' : 'red', status);
  output.line(`${prefix}${colored}  ${result.ms} ms  ${body.type} ${body.eventId}`);
  output.line(`  ${result.body === '' ? output.style('dim', '(empty body)') : result.body}`);
}

function toSent(body: TriggerBody, result: SendResult): Sent {
  return { eventId: body.eventId, type: body.type, status: result.status, ms: result.ms, response: parseOrText(result.body) };
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
