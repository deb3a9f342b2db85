import type { SandboxState } from './database.js';
import { makeId, seededRandom, systemRandom, type RandomSource } from './random.js';

/**
 * Every id and invented value of the sandbox. Seeded, it continues the same sequence across a
 * restart on the same file (its state is kept in `sandbox_state`), so a script run against a
 * fresh seeded sandbox makes the same ids each time.
 */
export class IdFactory {
  private readonly random: RandomSource;
  private readonly counters: Record<string, number>;

  constructor(
    private readonly state: SandboxState,
    seed: number | null,
  ) {
    const savedRandom = state.get<number>('random');
    this.random = seed === null ? systemRandom() : seededRandom(savedRandom ?? seed);
    this.counters = state.get<Record<string, number>>('counters') ?? {};
  }

  /** `cus_…`, `inv_…`, `evt_…`: the next id of a kind. */
  next(prefix: string): string {
    const counter = (this.counters[prefix] ?? 0) + 1;
    this.counters[prefix] = counter;
    const id = makeId(prefix, counter, this.random);
    this.persist();
    return id;
  }

  /** The next number of a kind, from 1: invoice numbers, FinanzOnline references. */
  sequence(name: string): number {
    const counter = (this.counters[name] ?? 0) + 1;
    this.counters[name] = counter;
    this.persist();
    return counter;
  }

  /** An integer from 0 to `bound - 1`. */
  below(bound: number): number {
    const value = this.random.below(bound);
    this.persist();
    return value;
  }

  private persist(): void {
    this.state.set('counters', this.counters);
    const random = this.random.state();
    if (random !== null) this.state.set('random', random);
  }
}
