import type { AddressInfo } from 'node:net';
import { ConfigurationError } from 'acct-webhook';
import { pino } from 'pino';
import { createApp, type WebhookApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createWebhooks } from './handlers/index.js';
import { openStore } from './store.js';

/**
 * How long deliveries in flight may take to finish after SIGTERM or SIGINT before the process
 * exits anyway: longer than the handlers' budget (25 s), shorter than most orchestrators'
 * grace period (30 s).
 */
const SHUTDOWN_TIMEOUT_MS = 28_000;

// One JSON line per event: the receiver logs every delivery, your handlers log through `log`.
const logger = pino({ name: '{{projectName}}' });

/** Reads .env when there is one (Node.js ≥ 20.12); variables already in the environment win. */
function loadDotEnv(): void {
  try {
    process.loadEnvFile();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

async function start(): Promise<WebhookApp> {
  loadDotEnv();
  const config = loadConfig(process.env);
  const app = createApp({ secret: config.secret, store: openStore(process.env), webhooks: createWebhooks(), logger });
  try {
    // Opens the store now (for PostgreSQL: connects, creates or migrates the tables), so that a
    // wrong DATABASE_URL stops the start, not the first delivery.
    await app.ready();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw new ConfigError(`the idempotency store cannot be used: ${reasonOf(error)}`, { cause: error });
  }
  app.server.once('error', (error) => {
    // Most often EADDRINUSE: another process has the port.
    logger.fatal({ err: error }, `cannot listen on ${config.host} port ${config.port}`);
    process.exitCode = 1;
    void app.close();
  });
  app.server.listen(config.port, config.host, () => {
    const { port, address } = app.server.address() as AddressInfo;
    const origin = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
    logger.info({ host: address, port }, `receiving webhooks at ${origin}{{webhookPath}} (health: ${origin}/health, readiness: ${origin}/ready)`);
  });
  return app;
}

/** Why a store did not open, in words: a refused connection's message is in its first error. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== '') return error.message;
  const [first] = error instanceof AggregateError ? (error.errors as unknown[]) : [];
  if (first instanceof Error && first.message !== '') return first.message;
  return (error as NodeJS.ErrnoException).code ?? error.name;
}

/** On SIGTERM (docker stop, Kubernetes) or SIGINT (Ctrl-C): finish what is running, then exit. */
function stopOnSignals(app: WebhookApp): void {
  const stop = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, 'shutting down: finishing deliveries in flight');
    const deadline = setTimeout(() => {
      logger.error('deliveries still running after the shutdown timeout; exiting anyway (the platform will retry them)');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    app.close().then(
      () => logger.info('stopped'),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

start().then(stopOnSignals, (error: unknown) => {
  // A configuration mistake (a missing secret, a store that cannot open) is the operator's to
  // fix: one clear line, no stack trace. Anything else is a bug: its stack is printed.
  if (!(error instanceof ConfigError || error instanceof ConfigurationError)) throw error;
  console.error(`Cannot start: ${error.message}`);
  process.exitCode = 1;
});
