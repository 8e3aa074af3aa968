/**
 * Conformance against a model: random batches applied to the engine and to plain Maps must leave
 * the same contents, by point reads and by iteration (whole namespaces and random ranges). Each
 * case comes from its own seed, which a failure names; `{ seed, randomRuns: 1 }` replays it.
 * `engineMatchesModel` is exported too, for property-based tools (the repository's own test runs
 * it under fast-check, which shrinks a failing case).
 */
import { createRng } from '@tessera/core';
import type { BatchOp, KeyRange, Namespace, StorageEngine } from '@tessera/server';
import { collect, type EngineFactory, plainEntries, utf8Order, withEngine } from './harness.js';
import { type ModelCase, randomCase } from './random-cases.js';
import type { Expect, TestFunctions } from './test-api.js';

type Model = Map<Namespace, Map<string, Uint8Array>>;

const NAMESPACES: readonly Namespace[] = ['data', 'hints', 'meta'];
/** Per case, generous: a fresh LevelDB is opened and closed for each. */
const CASE_TIMEOUT_MS = 1_000;

function applyToModel(model: Model, ops: readonly BatchOp[]): void {
  for (const op of ops) {
    const table = model.get(op.ns)!;
    if (op.type === 'put') table.set(op.key, op.value.slice());
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

/** Applies the case's batches to an open, empty engine and checks it against the model. */
export async function engineMatchesModel(
  engine: StorageEngine,
  { batches, ranges }: ModelCase,
  expect: Expect,
): Promise<void> {
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
}

/** Names the failing case's seed in the error, keeping the error itself (and its diff). */
function naming(err: unknown, seed: number): unknown {
  if (err instanceof Error)
    err.message = `[case seed ${seed}; replay with { seed: ${seed}, randomRuns: 1 }] ${err.message}`;
  return err;
}

export function modelConformance(
  t: TestFunctions,
  makeEngine: EngineFactory,
  runs: number,
  seed: number,
): void {
  t.it(
    `matches a Map model after random batches (${runs} random cases)`,
    async () => {
      for (let i = 0; i < runs; i++) {
        const caseSeed = (seed + i) >>> 0;
        const modelCase = randomCase(createRng(caseSeed));
        await withEngine(makeEngine, (engine) => engineMatchesModel(engine, modelCase, t.expect)).catch(
          (err: unknown) => {
            throw naming(err, caseSeed);
          },
        );
      }
    },
    10_000 + runs * CASE_TIMEOUT_MS,
  );
}
