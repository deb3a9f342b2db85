import { CliError } from './errors.js';

/**
 * Parsers for option values, given to commander. Each throws INVALID_OPTION (exit 2) naming the
 * option, so a bad value stops the command before anything is sent or written.
 */

/** The environment variable that stands in for `--secret` (the generated projects use it too). */
export const SECRET_ENV = 'WEBHOOK_SECRET';

export function positiveInteger(option: string, max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < 1 || number > max) {
      throw invalidOption(option, value, `a whole number from 1 to ${max}`);
    }
    return number;
  };
}

export function positiveNumber(option: string, max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number <= 0 || number > max) {
      throw invalidOption(option, value, `a number above 0, at most ${max}`);
    }
    return number;
  };
}

/** A TCP port; 0 lets the system pick a free one. */
export function port(option: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d{1,5}$/.test(value.trim()) || number > MAX_PORT) throw invalidOption(option, value, `a port from 0 to ${MAX_PORT} (0: any free port)`);
    return number;
  };
}

const MAX_PORT = 65_535;

/** Unix seconds, as `x-svc-timestamp` carries them. */
export function unixSeconds(option: string): (value: string) => number {
  return (value) => {
    if (!/^\d{1,15}$/.test(value.trim())) throw invalidOption(option, value, 'Unix time in whole seconds, e.g. 1763802000');
    return Number(value.trim());
  };
}

/** An absolute http: or https: URL. */
export function httpUrl(option: string): (value: string) => string {
  return (value) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw invalidOption(option, value, 'an absolute URL such as http://127.0.0.1:3000/webhooks');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidOption(option, value, 'an http: or https: URL');
    return url.href;
  };
}

/** An ISO 8601 date or date-time (`2026-11-22`, `2026-11-22T09:00:00Z`) → ms since the epoch. */
export function isoTime(option: string): (value: string) => number {
  return (value) => {
    const ms = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? Date.parse(value.trim()) : NaN;
    if (!Number.isFinite(ms)) throw invalidOption(option, value, 'an ISO 8601 date or time, e.g. 2026-11-22T09:00:00Z');
    return ms;
  };
}

const DURATION_UNITS: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };

/** A duration: `24h`, `90m`, `45s`, `7d`, combinable (`1d12h`), or `0`; → milliseconds, at most `maxMs`. */
export function duration(option: string, maxMs: number): (value: string) => number {
  return (value) => {
    const text = value.trim();
    if (text === '0') return 0;
    if (!/^(\d+[dhms])+$/.test(text)) throw invalidOption(option, value, 'a duration such as 24h, 90m or 7d (combinable: 1d12h)');
    let ms = 0;
    for (const [, amount, unit] of text.matchAll(/(\d+)([dhms])/g)) ms += Number(amount) * DURATION_UNITS[unit!]!;
    if (!Number.isSafeInteger(ms) || ms > maxMs) throw invalidOption(option, value, `a duration of at most ${Math.round(maxMs / 86_400_000)}d`);
    return ms;
  };
}

/** One of `choices`. */
export function oneOf<T extends string>(option: string, choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(choices as readonly string[]).includes(value)) throw invalidOption(option, value, `one of ${choices.join(', ')}`);
    return value as T;
  };
}

/** A value that is not empty (nor only spaces), trimmed. */
export function nonEmpty(option: string): (value: string) => string {
  return (value) => {
    const trimmed = value.trim();
    if (trimmed === '') throw invalidOption(option, value, 'a value that is not empty');
    return trimmed;
  };
}

/** For repeatable options (`--set a=1 --set b=2`): every value, in order. */
export function collect(value: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * The webhook secret from `--secret`, else from WEBHOOK_SECRET in `env`; MISSING_SECRET without
 * either. A secret with whitespace around it (a stray space or newline from copying) is refused
 * with only that hint: no platform secret has any, and every signature made or checked with it
 * would be wrong for that reason alone.
 */
export function requireSecret(secret: string | undefined, env: NodeJS.ProcessEnv): string {
  const [only] = requireSecrets(secret === undefined ? undefined : [secret], env);
  return only ?? missingSecret();
}

/** Every `--secret` given (newest first, while rotating), else WEBHOOK_SECRET; as {@link requireSecret}. */
export function requireSecrets(secrets: readonly string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  const given = secrets !== undefined && secrets.length > 0;
  const chosen = given ? secrets : [env[SECRET_ENV] ?? ''];
  if (chosen.some((secret) => secret === '')) missingSecret();
  if (chosen.some((secret) => secret !== secret.trim())) {
    const source = given ? '--secret' : SECRET_ENV;
    // The value itself is never shown: it is a secret.
    throw new CliError('INVALID_OPTION', `${source} has whitespace before or after the secret (from copying?); platform secrets have none: give it without`, {
      option: source,
    });
  }
  return [...chosen];
}

function missingSecret(): never {
  throw new CliError('MISSING_SECRET', `No webhook secret: pass --secret whsec_… or set ${SECRET_ENV}`, { env: SECRET_ENV });
}

/** A value an option needs, when the option is only required in some modes (e.g. not with --dry-run). */
export function requireOption<T>(value: T | undefined, option: string, when: string): T {
  if (value === undefined) throw new CliError('INVALID_OPTION', `${option} is required ${when}`, { option });
  return value;
}

function invalidOption(option: string, value: string, expected: string): CliError {
  // The value is shown, except for options that may carry secrets (none of these do).
  return new CliError('INVALID_OPTION', `${option} must be ${expected}; got "${value}"`, { option, value });
}
