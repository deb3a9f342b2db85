import { inboxState, mergeState, recordState, type CatchUpCheckpoint, type CatchUpStore, type ReceivedState } from '../../ports/catch-up.js';
import type { InboxRow } from '../../ports/inbox-rows.js';
import type { QuarantineStore } from '../../ports/idempotency-store.js';

/** What the memory store's catch-up reads: its records, its inbox's rows, its quarantine. */
export interface MemoryCatchUpSources {
  record(eventId: string): { state: 'processing' | 'completed'; leaseUntil: number } | undefined;
  inboxRow(eventId: string): Pick<InboxRow, 'status'> | undefined;
  quarantine: QuarantineStore;
}

/** Catch-up's checkpoints in a map, and the states read from the store's own maps. */
export function memoryCatchUp(sources: MemoryCatchUpSources): CatchUpStore {
  const checkpoints = new Map<string, CatchUpCheckpoint>();
  return {
    checkpoint: (name) => Promise.resolve(copy(checkpoints.get(name))),
    saveCheckpoint(checkpoint) {
      checkpoints.set(checkpoint.name, { ...checkpoint });
      return Promise.resolve();
    },
    deleteCheckpoint: (name) => Promise.resolve(checkpoints.delete(name)),
    async receivedStates(eventIds, now) {
      const states = new Map<string, ReceivedState>();
      const wanted = new Set(eventIds);
      for (const eventId of wanted) {
        const record = sources.record(eventId);
        if (record) mergeState(states, eventId, recordState(record.state, record.leaseUntil, now));
        const row = sources.inboxRow(eventId);
        if (row) mergeState(states, eventId, inboxState(row.status));
      }
      for (const entry of await sources.quarantine.list()) {
        if (entry.event_id !== null && wanted.has(entry.event_id)) mergeState(states, entry.event_id, 'quarantined');
      }
      return states;
    },
  };
}

function copy(checkpoint: CatchUpCheckpoint | undefined): CatchUpCheckpoint | undefined {
  return checkpoint === undefined ? undefined : { ...checkpoint };
}
