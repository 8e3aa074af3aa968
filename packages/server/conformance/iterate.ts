/** Conformance: iteration order, ranges and limits, namespace boundaries. */

import type { KeyRange, StorageEngine } from '@tessera/server';
import { keysOf } from '@tessera/server';
import {
  collect,
  type EngineFactory,
  plainEntries,
  put,
  TRICKY_KEYS,
  text,
  utf8Order,
  withEngine,
} from './harness.js';
import type { TestFunctions } from './test-api.js';

const SORTED_KEYS = [...TRICKY_KEYS].sort(utf8Order);

async function fill(engine: StorageEngine): Promise<void> {
  await engine.batch(
    TRICKY_KEYS.map((key) => ({ type: 'put' as const, ns: 'data' as const, key, value: text(key) })),
  );
  // Neighbours in the other namespaces, some with the same keys, must never show up in 'data'.
  await engine.batch([
    ...TRICKY_KEYS.map((key) => ({ type: 'put' as const, ns: 'hints' as const, key, value: text('hint') })),
    { type: 'put', ns: 'meta', key: '', value: text('meta') },
    { type: 'put', ns: 'meta', key: '\uffff', value: text('meta') },
    { type: 'put', ns: 'meta', key: 'zz', value: text('meta') },
  ]);
}

function expected(range: KeyRange): [string, number[]][] {
  const keys = SORTED_KEYS.filter(
    (key) =>
      (range.gte === undefined || utf8Order(key, range.gte) >= 0) &&
      (range.lt === undefined || utf8Order(key, range.lt) < 0),
  );
  return keys.slice(0, range.limit ?? keys.length).map((key) => [key, [...text(key)]]);
}

const RANGES: readonly KeyRange[] = [
  {},
  { limit: 0 },
  { limit: 1 },
  { limit: 5 },
  { limit: 1000 },
  { gte: 'a' },
  { lt: 'a' },
  { gte: 'a', lt: 'b' },
  { gte: 'a!', lt: 'a"' },
  { gte: 'a', lt: 'a' },
  { gte: 'b', lt: 'a' },
  { gte: 'a', lt: 'z', limit: 3 },
  { gte: 'az' },
  { gte: '\u0000', lt: '\u0001' },
  { gte: '\ue000' },
  { gte: '\uffff' },
  { gte: '\uffff', lt: '😀' },
  { gte: '😀' },
  { lt: '\ue000' },
  { gte: '中' },
  { gte: 'd!', lt: 'd"' },
  { gte: '~', lt: '\u0080' },
];

export function iterateConformance(t: TestFunctions, makeEngine: EngineFactory): void {
  const { describe, it, expect } = t;
  describe('iterate', () => {
    it('yields every key of a namespace in UTF-8 byte order, with its value', () =>
      withEngine(makeEngine, async (engine) => {
        await fill(engine);
        const entries = await collect(engine.iterate('data'));
        expect(entries.map(([key]) => key)).toEqual(SORTED_KEYS);
        expect(plainEntries(entries)).toEqual(expected({}));
      }));

    it('orders characters above U+FFFF after U+E000..U+FFFF (code points, not UTF-16 units)', () =>
      withEngine(makeEngine, async (engine) => {
        for (const key of ['😀', '\uffff', '\ue000', '\ud7ff']) await put(engine, 'meta', key, text(key));
        const keys = (await collect(engine.iterate('meta'))).map(([key]) => key);
        expect(keys).toEqual(['\ud7ff', '\ue000', '\uffff', '😀']);
      }));

    it('honours gte, lt and limit', () =>
      withEngine(makeEngine, async (engine) => {
        await fill(engine);
        for (const range of RANGES) {
          const entries = plainEntries(await collect(engine.iterate('data', range)));
          expect(entries, JSON.stringify(range)).toEqual(expected(range));
        }
      }));

    it('lists the same keys without values (keys, or keysOf without it), in non-empty batches', () =>
      withEngine(makeEngine, async (engine) => {
        await fill(engine);
        for (const range of RANGES) {
          const batches = await collect(keysOf(engine, 'data', range));
          expect(batches.every((batch) => batch.length > 0)).toBe(true);
          const want = expected(range).map(([key]) => key);
          expect(batches.flat(), JSON.stringify(range)).toEqual(want);
        }
        expect((await collect(keysOf(engine, 'meta'))).flat()).toEqual(['', 'zz', '\uffff']);
      }));

    it('stays within its namespace', () =>
      withEngine(makeEngine, async (engine) => {
        await fill(engine);
        const hints = await collect(engine.iterate('hints'));
        expect(hints.map(([key]) => key)).toEqual(SORTED_KEYS);
        const meta = await collect(engine.iterate('meta'));
        expect(meta.map(([key]) => key)).toEqual(['', 'zz', '\uffff']);
        expect(await collect(engine.iterate('meta', { gte: 'zz\u0000' }))).toHaveLength(1);
        await engine.batch(TRICKY_KEYS.map((key) => ({ type: 'del' as const, ns: 'data' as const, key })));
        expect(await collect(engine.iterate('data'))).toEqual([]);
        expect(await collect(engine.iterate('hints'))).toHaveLength(TRICKY_KEYS.length);
      }));

    it('can be abandoned part way, and the engine still works and closes', () =>
      withEngine(makeEngine, async (engine) => {
        await fill(engine);
        let seen = 0;
        for await (const _ of engine.iterate('data')) {
          if (++seen === 3) break;
        }
        expect(seen).toBe(3);
        for await (const batch of keysOf(engine, 'data', { limit: 5 })) {
          expect(batch.length > 0).toBe(true);
          break;
        }
        await put(engine, 'data', 'after', text('x'));
        expect(await engine.get('data', 'after')).toEqual(text('x'));
      }));
  });
}
