import { z } from 'zod';

/**
 * An object schema that parses like `z.looseObject` — keys the platform adds later pass through
 * untouched, so a new field never breaks a receiver — but is typed like `z.object`, so a typo
 * in a handler (`amout`) is a compile error instead of `unknown`.
 */
export function record<Shape extends z.ZodRawShape>(shape: Shape): z.ZodObject<Shape> {
  return z.looseObject(shape);
}

/** An amount in integer minor units (cents): 12000 is EUR 120.00. */
export const amount = z.int();
export const nonNegativeAmount = z.int().nonnegative();
/** ISO 4217 alphabetic code, upper case (EUR). */
export const currency = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR');
/** ISO 3166-1 alpha-2 country code (AT). */
export const country = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as AT');
export const dateTime = z.iso.datetime({ offset: true });
export const date = z.iso.date();
export const id = z.string().min(1).max(255);
/** VAT rate in percent. Austria: 20 (standard), 13 and 10 (reduced), 0 (exempt). */
export const vatRate = z.number().min(0).max(100);

/**
 * A VAT identification number (UID). Austrian numbers are `ATU` followed by 8 digits; other EU
 * numbers start with their country code.
 */
export const uidNumber = z
  .string()
  .regex(/^[A-Z]{2}[0-9A-Z]{2,13}$/, 'must be an EU VAT id such as ATU12345675')
  .refine((uid) => !uid.startsWith('AT') || /^ATU\d{8}$/.test(uid), 'an Austrian UID is ATU followed by 8 digits');

/** Form version label of the payload, `YYYY-MM`. */
export const apiVersion = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must have the form YYYY-MM');
