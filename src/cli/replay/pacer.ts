export interface PacerClock {
  /** A monotonic time in ms. @default performance.now */
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: PacerClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Spaces starts evenly: at most `perSecond` a second, however many workers ask. Each `wait()`
 * takes the next free slot and resolves when it begins; slots missed while nobody asked are not
 * saved up, so there is never a burst.
 */
export class Pacer {
  private readonly intervalMs: number;
  private nextSlot: number;

  constructor(perSecond: number, private readonly clock: PacerClock = realClock) {
    this.intervalMs = 1000 / perSecond;
    this.nextSlot = clock.now();
  }

  async wait(): Promise<void> {
    const now = this.clock.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + this.intervalMs;
    if (slot > now) await this.clock.sleep(slot - now);
  }
}
