import { randomBytes } from 'node:crypto';

/** The characters of ids, in ASCII order, so that a counter written in them sorts as it counts. */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 16;

/** Where the sandbox's ids and invented values come from: a seeded sequence, or the system's randomness. */
export interface RandomSource {
  /** An integer from 0 to `bound - 1`. */
  below(bound: number): number;
  /** The state to persist, so that a reopened sandbox continues the same sequence; null when not seeded. */
  state(): number | null;
}

/**
 * mulberry32: a small 32-bit generator, plenty for ids and sample values that only need to be
 * reproducible, never secret (secrets come from the Dispatcher, always from crypto).
 */
export function seededRandom(seed: number): RandomSource {
  let current = seed >>> 0;
  const next = (): number => {
    current = (current + 0x6d2b79f5) >>> 0;
    let t = current;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { below: (bound) => Math.floor(next() * bound), state: () => current };
}

export function systemRandom(): RandomSource {
  return { below: (bound) => randomBytes(4).readUInt32BE(0) % bound, state: () => null };
}

/**
 * Ids in the platform's style (`cus_…`, `inv_…`, `evt_…`): a fixed-width counter, so that ids of
 * one kind sort in the order they were made, then random characters from the source.
 */
export function makeId(prefix: string, counter: number, random: RandomSource): string {
  let head = '';
  for (let rest = counter; head.length < 4; rest = Math.floor(rest / ALPHABET.length)) head = ALPHABET[rest % ALPHABET.length]! + head;
  let tail = '';
  while (tail.length < RANDOM_LENGTH) tail += ALPHABET[random.below(ALPHABET.length)]!;
  return `${prefix}_${head}${tail}`;
}
