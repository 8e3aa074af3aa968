/** Conformance: single-key reads and writes, batches, namespaces, copies and lifecycle. */

import type { BatchOp, Namespace } from '@tessera/server';
import { bytes, collect, type EngineFactory, expectTesseraError, put, text, withEngine } from './harness.js';
import type { TestFunctions } from './test-api.js';

const NAMESPACES: readonly Namespace[] = ['data', 'hints', 'meta'];

export function basicConformance(t: TestFunctions, makeEngine: EngineFactory): void {
  const { describe, it, expect } = t;
  describe('get, put, del', () => {
    it('returns undefined for a missing key in every namespace', () =>
      withEngine(makeEngine, async (engine) => {
        for (const ns of NAMESPACES) expect(await engine.get(ns, 'missing')).toBeUndefined();
      }));

    it('round-trips arbitrary bytes, including an empty value', () =>
      withEngine(makeEngine, async (engine) => {
        const all = Uint8Array.from({ length: 256 }, (_, i) => i);
        const big = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 251);
        await put(engine, 'data', 'all', all);
        await put(engine, 'data', 'empty', new Uint8Array(0));
        await put(engine, 'data', 'big', big);
        expect(await engine.get('data', 'all')).toEqual(all);
        const gotBig = await engine.get('data', 'big');
        expect(gotBig?.length).toBe(big.length);
        expect(Buffer.compare(gotBig!, big), 'big value differs').toBe(0);
        const empty = await engine.get('data', 'empty');
        expect(empty).toBeInstanceOf(Uint8Array);
        expect(empty?.length).toBe(0);
      }));

    it('reads back keys of every length, multi-byte characters at every byte offset', () =>
      withEngine(makeEngine, async (engine) => {
        // classic-level 3.0's getSync, given a string key, writes it into a buffer sized for an
        // earlier key and misses a longer key whose UTF-8 passes the buffer's end inside a
        // character: the key was stored but read as absent (a write would then replace it, not
        // merge with it). Lengths jump (1 to 300 characters) and characters of 1 to 4 bytes mix,
        // read in that order.
        const chars = ['x', 'é', '€', '🔑'];
        const keys = Array.from(
          { length: 400 },
          (_, i) =>
            `${i}:${Array.from({ length: (i * 37) % 300 }, (_, j) => chars[(i * 7 + j * 13) % 4]).join('')}`,
        );
        for (const [i, key] of keys.entries()) await put(engine, 'data', key, text(`${i}`));
        for (const [i, key] of keys.entries()) {
          expect(await engine.get('data', key), `key ${i} (${key.length} UTF-16 units)`).toEqual(
            text(`${i}`),
          );
        }
      }));

    it('overwrites and deletes; deleting a missing key is fine', () =>
      withEngine(makeEngine, async (engine) => {
        await put(engine, 'data', 'k', text('one'));
        await put(engine, 'data', 'k', text('two'));
        expect(await engine.get('data', 'k')).toEqual(text('two'));
        await engine.batch([{ type: 'del', ns: 'data', key: 'k' }]);
        expect(await engine.get('data', 'k')).toBeUndefined();
        await engine.batch([{ type: 'del', ns: 'data', key: 'never-written' }]);
      }));
  });

  describe('batch', () => {
    it('applies ops in order: a later op on the same key wins', () =>
      withEngine(makeEngine, async (engine) => {
        await put(engine, 'data', 'c', text('old'));
        await engine.batch([
          { type: 'put', ns: 'data', key: 'a', value: text('1') },
          { type: 'put', ns: 'data', key: 'a', value: text('2') },
          { type: 'put', ns: 'data', key: 'b', value: text('1') },
          { type: 'del', ns: 'data', key: 'b' },
          { type: 'del', ns: 'data', key: 'c' },
          { type: 'put', ns: 'data', key: 'c', value: text('new') },
          { type: 'put', ns: 'meta', key: 'a', value: text('meta') },
        ]);
        expect(await engine.get('data', 'a')).toEqual(text('2'));
        expect(await engine.get('data', 'b')).toBeUndefined();
        expect(await engine.get('data', 'c')).toEqual(text('new'));
        expect(await engine.get('meta', 'a')).toEqual(text('meta'));
      }));

    it('applies every op or none: a batch with a bad op changes nothing', () =>
      withEngine(makeEngine, async (engine) => {
        await put(engine, 'data', 'kept', text('before'));
        const bad = engine.batch([
          { type: 'put', ns: 'data', key: 'kept', value: text('after') },
          { type: 'put', ns: 'data', key: 'new', value: text('x') },
          // What a caller from plain JavaScript might send: the types allow no put without a value.
          { type: 'put', ns: 'data', key: 'no-value' } as unknown as BatchOp,
        ]);
        await expectTesseraError(expect, bad, 'INTERNAL');
        expect(await engine.get('data', 'kept')).toEqual(text('before'));
        expect(await engine.get('data', 'new')).toBeUndefined();
      }));

    it('accepts an empty batch and a synced batch', () =>
      withEngine(makeEngine, async (engine) => {
        await engine.batch([]);
        await engine.batch([{ type: 'put', ns: 'hints', key: 'h', value: bytes(1) }], { sync: true });
        expect(await engine.get('hints', 'h')).toEqual(bytes(1));
      }));

    it('refuses keys that are not well-formed Unicode (they have no UTF-8 form)', () =>
      withEngine(makeEngine, async (engine) => {
        await expectTesseraError(expect, engine.get('data', 'a\ud800'), 'INVALID_KEY');
        await expectTesseraError(expect, put(engine, 'data', '\udc00b', bytes(1)), 'INVALID_KEY');
        await expectTesseraError(
          expect,
          (async () => collect(engine.iterate('data', { gte: 'a', lt: '\ud83d' })))(),
          'INVALID_KEY',
        );
        await put(engine, 'data', '\ufffd', bytes(1));
        expect(await engine.get('data', '\ufffd')).toEqual(bytes(1));
      }));
  });

  it('keeps namespaces apart: one key in data, hints and meta is three entries', () =>
    withEngine(makeEngine, async (engine) => {
      await engine.batch(
        NAMESPACES.map((ns) => ({ type: 'put' as const, ns, key: 'same', value: text(ns) })),
      );
      for (const ns of NAMESPACES) expect(await engine.get(ns, 'same')).toEqual(text(ns));
      await engine.batch([{ type: 'del', ns: 'hints', key: 'same' }]);
      expect(await engine.get('hints', 'same')).toBeUndefined();
      expect(await engine.get('data', 'same')).toEqual(text('data'));
      expect(await engine.get('meta', 'same')).toEqual(text('meta'));
    }));

  it('stores and returns copies: no caller can change stored bytes', () =>
    withEngine(makeEngine, async (engine) => {
      const input = bytes(1, 2, 3);
      await put(engine, 'data', 'k', input);
      input[0] = 99;
      const first = await engine.get('data', 'k');
      expect(first).toEqual(bytes(1, 2, 3));
      first![1] = 99;
      first!.slice(0, 1)[0] = 98;
      const second = await engine.get('data', 'k');
      expect(second).toEqual(bytes(1, 2, 3));
      expect(second).not.toBe(first);
      for await (const [, value] of engine.iterate('data')) value[2] = 99;
      expect(await engine.get('data', 'k')).toEqual(bytes(1, 2, 3));
    }));

  describe('lifecycle', () => {
    it('refuses calls when not open, and open/close are idempotent', async () => {
      const harness = await makeEngine();
      const { engine } = harness;
      try {
        await expectTesseraError(expect, engine.get('data', 'k'), 'STORAGE_FAILURE');
        await engine.open();
        await engine.open();
        await put(engine, 'data', 'k', bytes(1));
        await engine.close();
        await engine.close();
        await expectTesseraError(expect, engine.get('data', 'k'), 'STORAGE_FAILURE');
        await expectTesseraError(expect, put(engine, 'data', 'k', bytes(2)), 'STORAGE_FAILURE');
        await expectTesseraError(expect, (async () => collect(engine.iterate('data')))(), 'STORAGE_FAILURE');
      } finally {
        await engine.close();
        await harness.cleanup();
      }
    });

    it('keeps data across close and reopen', async () => {
      const harness = await makeEngine();
      let engine = harness.engine;
      try {
        await engine.open();
        await engine.batch([
          { type: 'put', ns: 'data', key: 'k', value: text('durable') },
          { type: 'put', ns: 'meta', key: 'node-id', value: text('n1') },
          { type: 'put', ns: 'hints', key: 'gone', value: text('x') },
        ]);
        await engine.batch([{ type: 'del', ns: 'hints', key: 'gone' }], { sync: true });
        await engine.close();
        engine = harness.reopen === undefined ? engine : await harness.reopen();
        await engine.open();
        expect(await engine.get('data', 'k')).toEqual(text('durable'));
        expect(await engine.get('meta', 'node-id')).toEqual(text('n1'));
        expect(await engine.get('hints', 'gone')).toBeUndefined();
      } finally {
        await engine.close();
        await harness.engine.close();
        await harness.cleanup();
      }
    });
  });
}
