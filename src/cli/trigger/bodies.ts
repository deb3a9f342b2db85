import { parseEventType } from '../event-types.js';
import { readInputFile } from '../input.js';
import { applySetValues } from '../set-values.js';
import { createTestEvent } from '../../testing/index.js';

/** What one request carries: the exact bytes, and what to call it in the output. */
export interface TriggerBody {
  bytes: Buffer;
  eventId: string;
  type: string;
}

/**
 * The bodies `trigger` sends, one per call: a fresh catalog sample of `type` (new `evt_test_…`
 * id, `created` now) with the `--set` values merged in — or the same file bytes every time.
 */
export async function bodySource(type: string | undefined, file: string | undefined, sets: readonly string[]): Promise<() => TriggerBody> {
  if (file !== undefined) {
    const bytes = await readInputFile(file);
    const about = describe(bytes);
    return () => ({ bytes, ...about });
  }
  const eventType = parseEventType(type ?? '');
  // Checked once before anything is sent, so a bad --set stops the command at once.
  applySetValues(createTestEvent(eventType), sets);
  return () => {
    const event = applySetValues(createTestEvent(eventType), sets) as { id?: unknown; type?: unknown };
    const bytes = Buffer.from(JSON.stringify(event), 'utf8');
    return { bytes, eventId: String(event.id), type: String(event.type) };
  };
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
