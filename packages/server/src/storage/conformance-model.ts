/**
 * Conformance against a model: random batches applied to the engine and to plain Maps must
 * leave the same contents, by point reads and by iteration (whole namespaces and random ranges).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import {
  collect,
  type EngineFactory,
  plainEntries,
  TRICKY_KEYS,
  utf8Order,
  withEngine,
} from './conformance-harness.js';
import type { BatchOp, KeyRange, Namespace } from './engine.js';

type Model = Map<Namespace, Map<string, Uint8Array>>;

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

const batchesArb = fc.array(fc.array(opArb, { minLength: 1, maxLength: 12 }), { maxLength: 12 });

const rangeArb: fc.Arbitrary<KeyRange> = fc.record(
  { gte: keyArb, lt: keyArb, limit: fc.nat({ max: 20 }) },
  { requiredKeys: [] },
);

function applyToModel(model: Model, ops: readonly BatchOp[]): void {
  for (const op of ops) {
    const table = model.get(op.ns)!;
    if (op.type === 'put') table.set(op.key, op.value!.slice());
    else table.delete(op.key);
  }
}

function modelEntries(model: Model, ns: Namespace, range: KeyRange = {}): [string, number[]][] {
  const keys = [...model.get(ns)!.keys()]
    .sort(utf8Order)
    .filter(
      (key) =>
        (range.gte === undefined || utf8Order(key, range.gte) >= 0) &&
        (range.lt === undefined || utf8Order(key, range.lt) < 0),
    );
  return keys.slice(0, range.limit ?? keys.length).map((key) => [key, [...model.get(ns)!.get(key)!]]);
}

export function modelConformance(makeEngine: EngineFactory, numRuns: number): void {
  it('matches a Map model after random batches (property)', async () => {
    await fc.assert(
      fc.asyncProperty(batchesArb, fc.array(rangeArb, { maxLength: 4 }), async (batches, ranges) =>
        withEngine(makeEngine, async (engine) => {
          const model: Model = new Map(NAMESPACES.map((ns) => [ns, new Map()]));
          const touched = new Set<string>();
          for (const ops of batches) {
            await engine.batch(ops);
            applyToModel(model, ops);
            for (const op of ops) touched.add(op.key);
          }
          for (const ns of NAMESPACES) {
            for (const key of touched) {
              const stored = await engine.get(ns, key);
              const want = model.get(ns)!.get(key);
              expect(stored === undefined ? undefined : [...stored], `${ns} ${JSON.stringify(key)}`).toEqual(
                want === undefined ? undefined : [...want],
              );
            }
            expect(plainEntries(await collect(engine.iterate(ns)))).toEqual(modelEntries(model, ns));
          }
          for (const range of ranges) {
            const got = plainEntries(await collect(engine.iterate('data', range)));
            expect(got, JSON.stringify(range)).toEqual(modelEntries(model, 'data', range));
          }
        }),
      ),
      { numRuns },
    );
  });
}
