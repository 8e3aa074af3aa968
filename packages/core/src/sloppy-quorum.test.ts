import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sloppyTargets } from './sloppy-quorum.js';

const prefList = fc.uniqueArray(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f', 'g'), {
  minLength: 1,
  maxLength: 7,
});

describe('sloppyTargets', () => {
  it('targets every healthy primary, and replaces each down primary by a distinct healthy fallback with a hint', () => {
    fc.assert(
      fc.property(
        prefList,
        fc.integer({ min: 1, max: 5 }),
        fc.func(fc.boolean()),
        (preference, n, downFn) => {
          const down = new Set(preference.filter((node) => downFn(node)));
          const { targets, spares } = sloppyTargets(preference, n, (node) => down.has(node));
          const primaries = preference.slice(0, n);
          const nodes = targets.map((t) => t.node);
          expect(new Set(nodes).size).toBe(nodes.length);
          expect(nodes.every((node) => !down.has(node))).toBe(true);
          for (const p of primaries) if (!down.has(p)) expect(targets).toContainEqual({ node: p });
          const hinted = targets.filter((t) => t.hint !== undefined);
          expect(
            hinted.every(
              (t) => primaries.includes(t.hint!) && down.has(t.hint!) && !primaries.includes(t.node),
            ),
          ).toBe(true);
          const healthy = preference.filter((node) => !down.has(node)).length;
          expect(targets.length).toBe(Math.min(primaries.length, healthy));
          expect(spares.every((s) => !nodes.includes(s) && !down.has(s))).toBe(true);
        },
      ),
    );
  });

  it('uses fallbacks in ring order', () => {
    const { targets, spares } = sloppyTargets(
      ['a', 'b', 'c', 'd', 'e'],
      3,
      (node) => node === 'a' || node === 'c',
    );
    expect(targets).toEqual([{ node: 'b' }, { node: 'd', hint: 'a' }, { node: 'e', hint: 'c' }]);
    expect(spares).toEqual([]);
  });
});
