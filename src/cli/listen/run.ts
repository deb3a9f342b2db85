import { memoryStore } from '../../stores/memory/idempotency-store.js';
import { sqliteStore } from '../../stores/sqlite/idempotency-store.js';
import type { CommandContext } from '../context.js';
import { createLocalReceiver } from '../local-receiver/receiver.js';
import { renderDelivery, type DeliveryView } from '../local-receiver/render.js';
import { listenOn, serverUrl } from '../local-receiver/server.js';
import { forwardEvent } from './forward.js';

export interface ListenOptions {
  port: number;
  host: string;
  path?: string;
  /** Every --secret given, in order. */
  secret?: string[];
  db?: string;
  forwardTo?: string;
  json?: boolean;
}

/** Runs the receiver until Ctrl-C (or SIGTERM), then closes the server and the store. */
export async function runListen(context: CommandContext, options: ListenOptions, secrets: readonly string[]): Promise<void> {
  const { output } = context;
  const forwardTo = options.forwardTo;
  // Forwarded events are signed anew with the first secret: the newest, while rotating.
  const [signingSecret = ''] = secrets;
  const receiver = createLocalReceiver({
    secret: [...secrets],
    store: options.db === undefined ? memoryStore() : sqliteStore(options.db),
    ...(options.path === undefined ? {} : { path: options.path }),
    onDelivery: (delivery) => show(context, delivery, options.json === true),
    onNotice: (notice) => output.note(`${notice.level}: ${notice.message}`),
    ...(forwardTo === undefined
      ? {}
      : { onEvent: (event, rawBody) => forwardEvent({ url: forwardTo, secret: signingSecret, userAgent: context.userAgent }, event, rawBody) }),
  });
  const server = await listenOn(receiver.listener, options.port, options.host).catch(async (error: unknown) => {
    await receiver.close();
    throw error;
  });
  const url = serverUrl(options.host, server.port, receiver.path);
  if (options.json) output.jsonLine({ listening: url, forwardTo: forwardTo ?? null });
  else printBanner(context, url, forwardTo, secrets.length);

  await context.io.stopRequests.wait();
  await server.close();
  await receiver.close();
  if (!options.json) output.note('Stopped.');
}

function show(context: CommandContext, delivery: DeliveryView, json: boolean): void {
  if (json) context.output.jsonLine({ ...delivery, time: new Date(delivery.time).toISOString() });
  else for (const line of renderDelivery(context.output, delivery)) context.output.line(line);
}

function printBanner(context: CommandContext, url: string, forwardTo: string | undefined, secretCount: number): void {
  const { output } = context;
  const secrets = secretCount === 1 ? 'the given secret' : `any of the ${secretCount} given secrets`;
  output.line(`Listening on ${output.style('bold', url)}`);
  output.line(`  Verifying x-svc-signature with ${secrets}; refusing timestamps more than 300 s off.`);
  if (forwardTo !== undefined) output.line(`  Forwarding each new verified event to ${forwardTo}, re-signed with ${secretCount === 1 ? 'the same secret' : 'the first secret'}.`);
  output.line('  Ctrl-C to stop.');
  output.line();
}
