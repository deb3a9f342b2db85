import type { WebhookEvent } from '../../events/schemas.js';
import { handlerFields } from '../../events/handler-fields.js';

/**
 * The fields a person wants to see first about an event's object — the same the scaffolder's
 * generated handlers log (`id`, the group's key fields, what the transition sets), from the
 * event catalog. Amounts are shown in major units with their currency; empty fields are left out.
 */
export function keyFields(event: WebhookEvent): Record<string, string> {
  const object = event.data.object as Record<string, unknown>;
  const currency = typeof object.currency === 'string' ? object.currency : undefined;
  const shown: Record<string, string> = {};
  for (const field of handlerFields(event.type).fields) {
    const value = object[field];
    if (value === null || value === undefined || (field === 'currency' && currency !== undefined)) continue;
    shown[field] = isAmount(field, value) && currency !== undefined ? formatMoney(value, currency) : formatValue(value);
  }
  return shown;
}

/** `16950`, `EUR` → `169.50 EUR`: amounts travel in minor units (cents). */
export function formatMoney(minorUnits: number, currency: string): string {
  const digits = fractionDigits(currency);
  return `${(minorUnits / 10 ** digits).toFixed(digits)} ${currency}`;
}

function isAmount(field: string, value: unknown): value is number {
  return field.endsWith('amount') && typeof value === 'number' && Number.isInteger(value);
}

function fractionDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? DEFAULT_FRACTION_DIGITS;
  } catch {
    return DEFAULT_FRACTION_DIGITS;
  }
}

/** Cents, for a currency code Intl does not know. */
const DEFAULT_FRACTION_DIGITS = 2;

function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
