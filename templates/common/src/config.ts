/** The port used when PORT is not set. */
export const DEFAULT_PORT = {{port}};
/**
 * The address listened on when HOST is not set: this machine only, so that a development server
 * is not reachable from the network. In a container set HOST=0.0.0.0 (or :: for IPv6 too), or
 * the published port reaches nothing.
 */
export const DEFAULT_HOST = '127.0.0.1';

/** What the server needs from the environment (see .env.example). */
export interface Config {
  /** The webhook's signing secret, the whole whsec_… string. */
  secret: string;
  port: number;
  /** The address to listen on (HOST). */
  host: string;
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
  return { secret, port: parsePort(env.PORT), host: env.HOST || DEFAULT_HOST };
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`PORT must be a whole number from 0 to 65535, not "${value}"`);
  }
  return port;
}
