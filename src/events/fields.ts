import { z } from 'zod';
import { documented } from './docs.js';

/**
 * An object schema that parses like `z.looseObject` — keys the platform adds later pass through
 * untouched, so a new field never breaks a receiver — but is typed like `z.object`, so a typo
 * in a handler (`amout`) is a compile error instead of `unknown`.
 */
export function record<Shape extends z.ZodRawShape>(shape: Shape): z.ZodObject<Shape> {
  return z.looseObject(shape);
}

export const amount = documented(z.int(), {
  id: 'Amount',
  description: 'An amount in integer minor units (cents): 12000 is EUR 120.00. A safe integer (at most 2^53 − 1 either way).',
});
export const nonNegativeAmount = documented(z.int().nonnegative(), {
  id: 'NonNegativeAmount',
  description: 'An amount in integer minor units (cents), zero or more.',
});
export const currency = documented(z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR'), {
  id: 'Currency',
  description: 'ISO 4217 alphabetic currency code, upper case (EUR).',
});
export const country = documented(z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as AT'), {
  id: 'Country',
  description: 'ISO 3166-1 alpha-2 country code, upper case (AT).',
});
export const dateTime = documented(z.iso.datetime({ offset: true }), {
  id: 'DateTime',
  description: 'A point in time: ISO 8601 / RFC 3339 with seconds and an offset (2026-11-12T07:45:00.000Z, 2026-11-12T08:45:00+01:00).',
});
export const date = documented(z.iso.date(), { id: 'Date', description: 'A calendar date, YYYY-MM-DD.' });
export const id = z.string().min(1).max(255);
export const vatRate = documented(z.number().min(0).max(100), 'VAT rate in percent. Austria: 20 (standard), 13 and 10 (reduced), 0 (exempt).');

/** An Austrian UID: `ATU` and 8 digits. */
const AUSTRIAN_UID = /^ATU\d{8}$/;
const AUSTRIAN_PREFIX = /^AT/;

export const uidNumber = documented(
  z
    .string()
    .regex(/^[A-Z]{2}[0-9A-Z]{2,13}$/, 'must be an EU VAT id such as ATU12345675')
    .refine((uid) => !AUSTRIAN_PREFIX.test(uid) || AUSTRIAN_UID.test(uid), 'an Austrian UID is ATU followed by 8 digits'),
  {
    id: 'UidNumber',
    description:
      'A VAT identification number (UID): Austrian numbers are ATU followed by 8 digits (ATU12345675); other EU numbers start with their country code.',
    if: { pattern: AUSTRIAN_PREFIX.source },
    then: { pattern: AUSTRIAN_UID.source },
  },
);

export const apiVersion = documented(
  z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must have the form YYYY-MM'),
  'The version of the payload format, YYYY-MM (2026-11).',
);
