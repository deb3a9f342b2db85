import { Option } from 'commander';
import { SECRET_ENV } from './options.js';

/** `--secret`, falling back to WEBHOOK_SECRET: an environment variable keeps the secret out of shell history. */
export function secretOption(what = 'the webhook secret: the whole whsec_… string'): Option {
  return new Option('--secret <secret>', what).env(SECRET_ENV);
}

export function jsonOption(what = 'print the result as JSON'): Option {
  return new Option('--json', what);
}
