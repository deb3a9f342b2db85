/*
 * What a contract suite needs from a test runner, written out so that the package depends on
 * none: vitest's and jest's functions fit as they are. The suites only register their cases;
 * the runner runs them.
 */

/** A test's body: it fails by throwing (or rejecting). */
export type ContractTestBody = () => Promise<void> | void;

/** The assertions the suites make; vitest's and jest's `expect(value)` have them all. */
export interface ContractAssertion {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toMatchObject(expected: object): void;
  toHaveLength(length: number): void;
  toBeUndefined(): void;
  toBeDefined(): void;
  toBeNull(): void;
  toBeGreaterThan(expected: number): void;
  readonly not: ContractAssertion;
}

/** `expect` as the suites call it: on a value, and `expect.any(Class)` inside an expected object. */
export interface ContractExpect {
  (actual: unknown): ContractAssertion;
  any(constructor: unknown): unknown;
}

/**
 * The test functions a suite registers its cases with. With vitest:
 * `import { afterEach, beforeEach, describe, expect, it } from 'vitest'` and pass
 * `{ describe, it, expect, beforeEach, afterEach }`; with jest, its globals.
 */
export interface ContractTestApi {
  // Properties, not methods: the suites take them out of the object, as a runner's globals are.
  describe: (name: string, body: () => void) => void;
  it: (name: string, body: ContractTestBody, timeoutMs?: number) => void;
  beforeEach: (body: ContractTestBody) => void;
  afterEach: (body: ContractTestBody) => void;
  expect: ContractExpect;
}
