import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatchOp } from './engine.js';
import { GROUP_OPS_MAX, GroupCommit } from './group-commit.js';
import { MemoryEngine } from './memory-engine.js';

const bytes = (n: number): Uint8Array => new Uint8Array([n & 0xff]);

describe('GroupCommit', () => {
  it('writes every valid submission of a burst and fails only the invalid ones', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.string({ minLength: 1, maxLength: 8 }), bad: fc.boolean() }), {
          minLength: 1,
          maxLength: 60,
        }),
        async (writes) => {
          const engine = new MemoryEngine();
          await engine.open();
          const commits = new GroupCommit(engine);
          // A lone surrogate is not a storable key: the engine refuses the batch holding it.
          const outcomes = await Promise.allSettled(
            writes.map((w, i) =>
              commits.write(
                [
                  {
                    type: 'put',
                    ns: 'data',
                    key: w.bad ? `\ud800${w.key}` : `${i}/${w.key}`,
                    value: bytes(i),
                  },
                ],
                i % 2 === 0,
              ),
            ),
          );
          for (const [i, w] of writes.entries()) {
            expect(outcomes[i]!.status).toBe(w.bad ? 'rejected' : 'fulfilled');
            if (!w.bad) expect(await engine.get('data', `${i}/${w.key}`)).toEqual(bytes(i));
          }
          await engine.close();
        },
      ),
      { numRuns: 50 },
    );
  });

  it('writes a burst larger than one group, over several groups', async () => {
    const engine = new MemoryEngine();
    await engine.open();
    const commits = new GroupCommit(engine);
    const batch = (i: number): BatchOp[] =>
      Array.from({ length: 100 }, (_, j) => ({ type: 'put', ns: 'data', key: `${i}:${j}`, value: bytes(j) }));
    const count = Math.ceil((3 * GROUP_OPS_MAX) / 100);
    await Promise.all(Array.from({ length: count }, (_, i) => commits.write(batch(i), false)));
    for (let i = 0; i < count; i++) expect(await engine.get('data', `${i}:99`)).toEqual(bytes(99));
    await engine.close();
  });
});
