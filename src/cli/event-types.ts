import { EVENT_TYPES, expandEventPattern, isEventType, type EventPattern, type EventType } from '../events/catalog.js';
import { CliError } from './errors.js';

/*
 * Event names on the command line, checked against the event catalog. This module loads the
 * catalog (and zod with it): commands import it lazily, inside their actions.
 */

/**
 * One of the 18 event types, for a command that takes exactly one; UNKNOWN_EVENT_TYPE (exit 2)
 * naming the known ones otherwise — and only them, since a group would be refused too.
 */
export function parseEventType(name: string): EventType {
  if (isEventType(name)) return name;
  throw unknownEventType(name, 'event type', false);
}

/**
 * An event type or pattern (`invoice.*`, `*`) → the types it selects, in catalog order. Every
 * command that takes a pattern reads it here, so each accepts what this error suggests.
 */
export function parseEventPattern(pattern: string): EventType[] {
  const types = expandEventPattern(pattern.trim());
  if (types.length === 0) throw unknownEventType(pattern, 'event type or pattern', true);
  return types;
}

/** A comma-separated list of types and patterns (`invoice.*,payment.failed`), each checked; as given. */
export function parseEventList(list: string): EventPattern[] {
  const patterns = list
    .split(',')
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== '');
  if (patterns.length === 0) throw unknownEventType(list, 'event list', true);
  for (const pattern of patterns) parseEventPattern(pattern);
  // Each one selects at least one type, so each is a pattern of the catalog.
  return patterns as EventPattern[];
}

function unknownEventType(value: string, what: string, patterns: boolean): CliError {
  const groups = patterns ? ' (or a group such as invoice.*, or *)' : '';
  return new CliError('UNKNOWN_EVENT_TYPE', `Unknown ${what} "${value}"; known types: ${EVENT_TYPES.join(', ')}${groups}`, { value });
}
