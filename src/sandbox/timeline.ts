import type { SandboxContext } from './context.js';
import { markOverdue, overdueAt } from './resources/invoices.js';
import { renew, renewalAt } from './resources/subscriptions.js';

/** Something the clock makes happen: an invoice falling overdue, a subscription renewing. */
interface Happening {
  at: number;
  happen: () => Promise<void>;
}

/** What the clock makes happen in one account. */
function happenings(context: SandboxContext): Happening[] {
  const { objects } = context;
  const overdue = objects.all('invoice').flatMap((invoice) => {
    const at = overdueAt(invoice);
    return at === null ? [] : [{ at, happen: () => markOverdue(context, invoice) }];
  });
  const renewals = objects.all('subscription').flatMap((subscription) => {
    const at = renewalAt(subscription);
    return at === null ? [] : [{ at, happen: () => renew(context, subscription) }];
  });
  return [...overdue, ...renewals];
}

/** Deliveries read per page while looking for the next due one. */
const PAGE = 1000;

/** When the earliest retrying delivery due after `after` is due (every one is looked at), or Infinity. */
async function nextDeliveryAt(context: SandboxContext, after: number): Promise<number> {
  let earliest = Infinity;
  for (let offset = 0; ; offset += PAGE) {
    const retrying = await context.dispatcher.deliveries.list({ status: 'retrying', limit: PAGE, offset });
    for (const delivery of retrying) {
      const at = delivery.next_attempt_at === null ? Infinity : Date.parse(delivery.next_attempt_at);
      if (at > after && at < earliest) earliest = at;
    }
    if (retrying.length < PAGE) return earliest;
  }
}

/**
 * Moves the sandbox clock, which every account shares, forward by `ms`, stopping at every instant on the way where something
 * is due — an invoice's overdue day, a renewal, a retry of the schedule — so that each happens at
 * its own time, in order, exactly as if that much time had passed: a delivery that fails every
 * attempt is tried at 0, 1, 6, 36 … minutes of sandbox time, each attempt only after the previous
 * one was answered or timed out (no background run is in flight while the clock moves). Resolves
 * when everything due up to the new time has been emitted and attempted.
 */
export function advanceClock(accounts: readonly [SandboxContext, ...SandboxContext[]], ms: number): Promise<void> {
  return accounts[0].pump.alone(() => advanceAlone(accounts, ms));
}

/** The one clock moves every account's time: each account's happenings are its own (its emitter, its business). */
async function advanceAlone(accounts: readonly [SandboxContext, ...SandboxContext[]], ms: number): Promise<void> {
  const context = accounts[0];
  const { clock, dispatcher } = context;
  const target = clock.now() + ms;
  // Deliveries due at or before this and still waiting cannot be sent (their webhook is
  // disabled): they are not waited for again.
  let stuckUntil = -Infinity;
  for (;;) {
    const due = accounts.flatMap(happenings).filter((happening) => happening.at <= target);
    const next = Math.min(...due.map((happening) => happening.at), await nextDeliveryAt(context, stuckUntil));
    if (next > target) break;
    clock.moveTo(next);
    const now = clock.now();
    const happening = due.filter((entry) => entry.at <= now).sort((a, b) => a.at - b.at);
    for (const entry of happening) await entry.happen();
    const attempts = await dispatcher.runDue();
    if (happening.length === 0 && attempts === 0) stuckUntil = now;
  }
  clock.moveTo(target);
}
