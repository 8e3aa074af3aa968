/**
 * The conformance suite's model check under fast-check, which shrinks a failing case to a small
 * one (the published suite draws its cases from a seed instead, to depend on no test library).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineMatchesModel, type ModelCase, TRICKY_KEYS } from '@tessera/server/conformance';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatchOp, KeyRange, Namespace, StorageEngine } from './engine.js';
import { LevelEngine } from './level-engine.js';
import { MemoryEngine } from './memory-engine.js';

const NAMESPACES: readonly Namespace[] = ['data', 'hints', 'meta'];

const keyArb = fc.oneof(
  fc.constantFrom(...TRICKY_KEYS),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.string({ unit: fc.constantFrom('a', 'b', '!', '"', 'é', '😀'), maxLength: 4 }),
);

const opArb: fc.Arbitrary<BatchOp> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('put' as const),
      ns: fc.constantFrom(...NAMESPACES),
      key: keyArb,
      value: fc.uint8Array({ maxLength: 24 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('del' as const),
      ns: fc.constantFrom(...NAMESPACES),
      key: keyArb,
    }),
  },
);

const rangeArb: fc.Arbitrary<KeyRange> = fc.record(
  { gte: keyArb, lt: keyArb, limit: fc.nat({ max: 20 }) },
  { requiredKeys: [] },
);

const caseArb: fc.Arbitrary<ModelCase> = fc.record({
  batches: fc.array(fc.array(opArb, { minLength: 1, maxLength: 12 }), { maxLength: 12 }),
  ranges: fc.array(rangeArb, { maxLength: 4 }),
});

async function onFreshEngine(
  engine: StorageEngine,
  modelCase: ModelCase,
  done: () => Promise<void>,
): Promise<void> {
  await engine.open();
  try {
    await engineMatchesModel(engine, modelCase, expect);
  } finally {
    await engine.close();
    await done();
  }
}

describe('StorageEngine against a Map model (fast-check)', () => {
  it('memory', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, (c) => onFreshEngine(new MemoryEngine(), c, async () => {})),
      { numRuns: 40 },
    );
  });

  it('leveldb', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const dir = await mkdtemp(join(tmpdir(), 'tessera-model-'));
        await onFreshEngine(new LevelEngine(dir), c, () => rm(dir, { recursive: true, force: true }));
      }),
      { numRuns: 40 },
    );
  });
});
