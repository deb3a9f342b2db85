/** The port used when PORT is not set. */
export const DEFAULT_PORT = {{port}};

/** What the server needs from the environment (see .env.example). */
export interface Config {
  /** The webhook's signing secret, the whole whsec_… string. */
  secret: string;
  port: number;
}

/** A setting is missing or unusable: the server cannot start, and says which one and why. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads the settings from `env` (normally `process.env`). Fails early and clearly: a receiver
 * without its secret would answer every delivery with 401 and lose them to the retry schedule.
 */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const secret = env.WEBHOOK_SECRET;
  if (!secret) {
    throw new ConfigError(
      'WEBHOOK_SECRET is not set: copy .env.example to .env and set WEBHOOK_SECRET to the webhook\'s signing secret (whsec_…)',
    );
  }
  return { secret, port: parsePort(env.PORT) };
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`PORT must be a whole number from 0 to 65535, not "${value}"`);
  }
  return port;
}
