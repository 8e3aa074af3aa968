/**
 * The conformance suite every StorageEngine must pass (like `abstract-level/test`). Call it from
 * a vitest file with a factory that makes a fresh, empty, unopened engine per test:
 *
 *   storageConformance('leveldb', async () => {
 *     const dir = await mkdtemp(join(tmpdir(), 'tessera-'));
 *     return { engine: new LevelEngine(dir), reopen: async () => new LevelEngine(dir),
 *              cleanup: () => rm(dir, { recursive: true, force: true }) };
 *   });
 *
 * Imports vitest and fast-check (root devDependencies): for tests only, never from node code.
 */
import { describe } from 'vitest';
import { basicConformance } from './conformance-basic.js';
import type { EngineFactory } from './conformance-harness.js';
import { iterateConformance } from './conformance-iterate.js';
import { modelConformance } from './conformance-model.js';

export type { EngineFactory, EngineHarness } from './conformance-harness.js';

export interface ConformanceOptions {
  /** Runs of the random-batches property test (default 40). */
  readonly propertyRuns?: number;
}

export function storageConformance(
  name: string,
  makeEngine: EngineFactory,
  options: ConformanceOptions = {},
): void {
  describe(`StorageEngine conformance: ${name}`, () => {
    basicConformance(makeEngine);
    iterateConformance(makeEngine);
    modelConformance(makeEngine, options.propertyRuns ?? 40);
  });
}
