/**
 * `@tessera/server/conformance`: the suite every StorageEngine must pass, like abstract-level's
 * test suite. It imports no test framework: give it your framework's `describe`, `it` and
 * `expect` (vitest or jest as they are), and a factory that makes a fresh, empty, unopened engine
 * per test:
 *
 *   import { describe, expect, it } from 'vitest';
 *   import { storageConformance } from '@tessera/server/conformance';
 *
 *   storageConformance('leveldb', async () => {
 *     const dir = await mkdtemp(join(tmpdir(), 'tessera-'));
 *     return { engine: new LevelEngine(dir), reopen: async () => new LevelEngine(dir),
 *              cleanup: () => rm(dir, { recursive: true, force: true }) };
 *   }, { describe, it, expect });
 */
import { basicConformance } from './basic.js';
import type { EngineFactory } from './harness.js';
import { iterateConformance } from './iterate.js';
import { modelConformance } from './model.js';
import type { TestFunctions } from './test-api.js';

export { type EngineFactory, type EngineHarness, TRICKY_KEYS } from './harness.js';
export { engineMatchesModel } from './model.js';
export { type ModelCase, randomCase } from './random-cases.js';
export type { Assertion, Expect, TestFunctions } from './test-api.js';

export interface ConformanceOptions {
  /** Random cases of the model test (default 40). */
  readonly randomRuns?: number;
  /** The first case's seed (default: a random one; a failure names the seed of its case). */
  readonly seed?: number;
}

export function storageConformance(
  name: string,
  makeEngine: EngineFactory,
  test: TestFunctions,
  options: ConformanceOptions = {},
): void {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
  test.describe(`StorageEngine conformance: ${name}`, () => {
    basicConformance(test, makeEngine);
    iterateConformance(test, makeEngine);
    modelConformance(test, makeEngine, options.randomRuns ?? 40, seed);
  });
}
