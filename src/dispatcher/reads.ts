import { dispatchReadsOf, type DispatchReads } from '../ports/dispatch-reads.js';
import type { DispatchStore } from '../ports/dispatch-store.js';

/*
 * How the dashboard reaches the reads of a dispatcher's store without the store being public:
 * each dispatcher registers how it reaches its store (once ready, refused once closed).
 */
const access = new WeakMap<object, () => Promise<DispatchStore>>();

/** Called by the dispatcher when it is made. */
export function registerStoreAccess(dispatcher: object, store: () => Promise<DispatchStore>): void {
  access.set(dispatcher, store);
}

/** The reads of the dispatcher's store; undefined for a store that does not offer them. */
export async function readsOfDispatcher(dispatcher: object): Promise<DispatchReads | undefined> {
  const store = access.get(dispatcher);
  return store ? dispatchReadsOf(await store()) : undefined;
}

/** Lets `view` (a scoped view of `dispatcher`, made by the dashboard) reach the same store's reads. */
export function shareStoreAccess(dispatcher: object, view: object): void {
  const store = access.get(dispatcher);
  if (store) access.set(view, store);
}
