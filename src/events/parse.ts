import { WebhookValidationError, type ValidationIssue } from '../kernel/errors.js';
import { isEventType } from './event-types.js';
import type { WebhookEvent } from './schemas.js';
import { FAIL, type Issue } from './validate.js';
import { EVENT_VALIDATORS } from './validators.generated.js';

/**
 * Parses and validates an event: raw JSON (string or bytes) or an already parsed value. Returns
 * the typed event with unknown extra fields kept as they came. Throws
 * {@link WebhookValidationError}: `UNKNOWN_EVENT_TYPE` for a type this version does not know
 * (a receiver may acknowledge it), `VALIDATION_ERROR` with the field paths otherwise.
 *
 * @example
 * const event = parseEvent(rawBody);
 * if (event.type === 'invoice.paid') console.log(event.data.object.paid_at);
 */
export function parseEvent(input: unknown): WebhookEvent {
  const value = isRawJson(input) ? parseJson(input) : input;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid([{ path: '', message: 'the payload must be a JSON object' }]);
  }
  const { type } = value as { type?: unknown };
  if (typeof type !== 'string') {
    throw invalid([{ path: 'type', message: 'required: a string naming the event type' }]);
  }
  if (!isEventType(type)) {
    const eventId = (value as { id?: unknown }).id;
    throw new WebhookValidationError(
      'UNKNOWN_EVENT_TYPE',
      `Unknown event type "${type}": this version of acct-webhook does not know it`,
      [{ path: 'type', message: `unknown event type "${type}"` }],
      { type, ...(typeof eventId === 'string' ? { event_id: eventId } : {}) },
    );
  }
  // The validators generated from the zod schemas (validator-source.ts): zod's result, without zod.
  const validate = EVENT_VALIDATORS[type];
  const event = validate(value, undefined, NO_PATH);
  if (event !== FAIL) return event as WebhookEvent;
  const issues: Issue[] = [];
  validate(value, issues, NO_PATH);
  throw invalid(toIssues(issues), type);
}

const NO_PATH: readonly PropertyKey[] = [];

function isRawJson(input: unknown): input is string | Uint8Array | ArrayBuffer {
  return typeof input === 'string' || input instanceof Uint8Array || input instanceof ArrayBuffer;
}

// Keys that turn a naive deep merge in user code into prototype pollution (`__proto__`, or
// `constructor` holding `prototype`) never occur in the platform's payloads, so an event carrying
// one is refused (and kept in quarantine). Both contain "proto", or a \u escape if disguised: a
// text without either needs no walk.
function mayPollute(text: string): boolean {
  return text.includes('proto') || text.includes('\\u');
}

function parseJson(input: string | Uint8Array | ArrayBuffer): unknown {
  const text = typeof input === 'string' ? input : decodeUtf8(input);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WebhookValidationError('INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`, [
      { path: '', message: 'invalid JSON' },
    ]);
  }
  if (mayPollute(text)) refusePollutingKeys(value);
  return value;
}

// Validates and decodes in one pass; keeps a byte order mark, which JSON.parse then refuses.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeUtf8(input: Uint8Array | ArrayBuffer): string {
  try {
    return utf8.decode(input);
  } catch {
    throw new WebhookValidationError('INVALID_ENCODING', 'The body is not valid UTF-8', [{ path: '', message: 'invalid UTF-8' }]);
  }
}

/**
 * JSON.parse makes `__proto__` an ordinary own key, so parsing itself is safe; the walk looks
 * for such keys so they never reach code that merges objects. It uses its own stack: a payload
 * may nest as deep as the body limit allows.
 */
interface Visit {
  value: unknown;
  key: string;
  parent: Visit | undefined;
}

function refusePollutingKeys(root: unknown): void {
  const stack: Visit[] = [{ value: root, key: '', parent: undefined }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    if (typeof visit.value !== 'object' || visit.value === null) continue;
    for (const key of Object.keys(visit.value)) {
      const child = (visit.value as Record<string, unknown>)[key];
      const pollutes =
        key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'));
      if (pollutes) {
        const where = pathOf({ value: child, key, parent: visit });
        throw new WebhookValidationError('VALIDATION_ERROR', `The payload contains the forbidden key "${key}" at ${where}`, [
          { path: where, message: `forbidden key "${key}" (prototype pollution)` },
        ]);
      }
      stack.push({ value: child, key, parent: visit });
    }
  }
}

function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
}

function toIssues(issues: readonly Issue[]): ValidationIssue[] {
  return issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

function invalid(issues: ValidationIssue[], type?: string): WebhookValidationError {
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  const where = first?.path ? `${first.path}: ` : '';
  const what = type ? `Invalid ${type} event` : 'Invalid event';
  return new WebhookValidationError('VALIDATION_ERROR', `${what}: ${where}${first?.message ?? 'invalid'}${more}`, issues);
}
