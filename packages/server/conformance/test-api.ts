/**
 * The test functions the conformance suite is given: `describe`, `it` and `expect` of vitest or
 * jest as they are (mocha with an expect library works too). Only what the suite calls is typed
 * here, so the package depends on no test framework.
 */

/** The matchers the suite uses (vitest's and jest's `expect(...)` have them all). */
export interface Assertion {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeUndefined(): void;
  toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): void;
  toHaveLength(length: number): void;
  readonly not: { toBe(expected: unknown): void };
}

/** `expect(actual, message?)`: the message names the failing case (jest ignores it). */
export type Expect = (actual: unknown, message?: string) => Assertion;

export interface TestFunctions {
  describe(name: string, body: () => void): void;
  /** `timeout` (ms) is passed on only to the slow tests, as vitest's and jest's third argument. */
  it(name: string, body: () => Promise<void>, timeout?: number): void;
  readonly expect: Expect;
}
