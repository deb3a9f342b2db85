import { parseEventPattern } from '../event-types.js';
import { readInputFile } from '../input.js';
import { applySetValues } from '../set-values.js';
import { sampleEvent } from '../../events/sample-event.js';
import { newId } from '../../kernel/ids.js';
import type { EventType } from '../../events/catalog.js';

/** What one request carries: the exact bytes, and what to call it in the output. */
export interface TriggerBody {
  bytes: Buffer;
  eventId: string;
  type: string;
}

/** Where the bodies come from: a type or pattern with changes, or a file. */
export interface BodySpec {
  /** An event type, a group such as `invoice.*`, or `*`. */
  pattern?: string;
  file?: string;
  sets: readonly string[];
  /** The event id of every sample; a fresh `evt_test_…` each time without it. */
  id?: string;
}

/**
 * The bodies `trigger` sends, one function per selected type (in catalog order): each call makes
 * a fresh catalog sample of the type (new `evt_test_…` id unless `id` fixes it, `created` now)
 * with the `--set` values merged in — or, for a file, the same bytes every time.
 */
export async function bodySources(spec: BodySpec): Promise<(() => TriggerBody)[]> {
  if (spec.file !== undefined) {
    const bytes = await readInputFile(spec.file);
    const about = describe(bytes);
    return [() => ({ bytes, ...about })];
  }
  const types = parseEventPattern(spec.pattern ?? '');
  const sets = spec.id === undefined ? spec.sets : [...spec.sets, `id=${JSON.stringify(spec.id)}`];
  // Checked once before anything is sent, so a bad --set stops the command at once.
  for (const type of types) applySetValues(sampleEvent(type, { id: newId('evt_test') }), sets);
  return types.map((type) => () => sample(type, sets));
}

function sample(type: EventType, sets: readonly string[]): TriggerBody {
  const event = applySetValues(sampleEvent(type, { id: newId('evt_test') }), sets) as { id?: unknown; type?: unknown };
  return { bytes: Buffer.from(JSON.stringify(event), 'utf8'), eventId: String(event.id), type: String(event.type) };
}

/** Id and type of a custom body, for the output; "-" when it is not an event. */
function describe(bytes: Buffer): { eventId: string; type: string } {
  try {
    const value = JSON.parse(bytes.toString('utf8')) as { id?: unknown; type?: unknown } | null;
    return { eventId: typeof value?.id === 'string' ? value.id : '-', type: typeof value?.type === 'string' ? value.type : '-' };
  } catch {
    return { eventId: '-', type: '-' };
  }
}
