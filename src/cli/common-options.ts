import { Option } from 'commander';
import { collect, SECRET_ENV } from './options.js';

/**
 * `--secret`, falling back to WEBHOOK_SECRET (an environment variable keeps the secret out of
 * shell history). The fallback is applied by {@link requireSecret} from the injected environment,
 * not by commander, which would read the process's own.
 */
export function secretOption(what = 'the webhook secret: the whole whsec_… string'): Option {
  return new Option('--secret <secret>', `${what} (or set ${SECRET_ENV})`);
}

/** `--secret`, repeatable: a receiver accepts several secrets while one is being rotated. */
export function secretsOption(what: string): Option {
  return new Option('--secret <secret>', `${what} (or set ${SECRET_ENV})`).argParser(collect);
}

export function jsonOption(what = 'print the result as JSON'): Option {
  return new Option('--json', what);
}
