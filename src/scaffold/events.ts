import { EVENT_CATALOG, EVENT_GROUPS, EVENT_TYPES, expandEventPattern, type EventGroup, type EventType } from '../events/catalog.js';
import { ScaffoldError } from './errors.js';

/** The chosen events of one group, in the order of the platform's document. */
export interface ChosenGroup {
  group: EventGroup;
  /** As the platform's document titles it: `Invoices`, `Tax office filing`, … */
  title: string;
  /** The object its events carry: `invoice`, `uva`, … */
  object: string;
  types: EventType[];
}

/**
 * The event types a comma-separated list selects (`invoice.paid,customer.*`, or `*` for all),
 * each once, in catalog order. Throws UNKNOWN_EVENT_TYPE for an entry that selects nothing.
 */
export function parseEventList(list: string): EventType[] {
  const patterns = list
    .split(',')
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern.length > 0);
  if (patterns.length === 0) {
    throw new ScaffoldError('UNKNOWN_EVENT_TYPE', 'No events given: name event types like invoice.paid, or patterns like customer.*', { events: list });
  }
  const chosen = new Set<EventType>();
  for (const pattern of patterns) {
    const types = expandEventPattern(pattern);
    if (types.length === 0) {
      throw new ScaffoldError('UNKNOWN_EVENT_TYPE', `Unknown event type or pattern "${pattern}"; known: ${EVENT_TYPES.join(', ')}, or a group like invoice.*`, {
        pattern,
      });
    }
    for (const type of types) chosen.add(type);
  }
  return inCatalogOrder(chosen);
}

export function inCatalogOrder(types: Iterable<EventType>): EventType[] {
  const chosen = new Set(types);
  return EVENT_TYPES.filter((type) => chosen.has(type));
}

/** The chosen types by group, groups in the document's order; groups with nothing chosen are left out. */
export function groupEvents(types: readonly EventType[]): ChosenGroup[] {
  const groups = Object.keys(EVENT_GROUPS) as EventGroup[];
  return groups.flatMap((group) => {
    const chosen = types.filter((type) => EVENT_CATALOG[type].group === group);
    if (chosen.length === 0) return [];
    const { title, object } = EVENT_GROUPS[group];
    return [{ group, title, object, types: inCatalogOrder(chosen) }];
  });
}
