import type { SandboxState } from './database.js';
import { makeId, seededRandom, systemRandom, type RandomSource } from './random.js';

/**
 * Every id and invented value of one account of the sandbox. Seeded, it continues the same
 * sequence across a restart on the same file (its state is kept in `sandbox_state`, under the
 * account's `namespace`), so a script run against a fresh seeded sandbox makes the same ids each
 * time. Each account has its own sequence (see {@link accountSeed}), so what one account does
 * never changes the ids another one gets.
 */
export class IdFactory {
  private readonly random: RandomSource;
  private readonly counters: Record<string, number>;

  constructor(
    private readonly state: SandboxState,
    seed: number | null,
    /** Prefixes this factory's keys in `sandbox_state`: '' for the first account (the keys of a one-account file). */
    private readonly namespace = '',
  ) {
    const savedRandom = state.get<number>(`${namespace}random`);
    this.random = seed === null ? systemRandom() : seededRandom(savedRandom ?? seed);
    this.counters = state.get<Record<string, number>>(`${namespace}counters`) ?? {};
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
    this.state.set(`${this.namespace}counters`, this.counters);
    const random = this.random.state();
    if (random !== null) this.state.set(`${this.namespace}random`, random);
  }
}

/**
 * The seed of account `index` (0 for the first): the sandbox's own seed for the first, so a
 * one-account sandbox makes the ids it always made; a different, fixed one for each other.
 */
export function accountSeed(seed: number, index: number): number {
  return index === 0 ? seed : (seed ^ Math.imul(index, 0x9e3779b9)) >>> 0;
}
