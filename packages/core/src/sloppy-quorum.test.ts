import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sloppyTargets } from './sloppy-quorum.js';

const prefList = fc.uniqueArray(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f', 'g'), {
  minLength: 1,
  maxLength: 7,
});

describe('sloppyTargets', () => {
  it('targets every healthy primary, replaces each down primary by a distinct healthy fallback with a hint, and asks a down primary itself when none is left', () => {
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
          for (const p of primaries) if (!down.has(p)) expect(targets).toContainEqual({ node: p });
          // A suspected node is asked only as a primary no healthy fallback could replace.
          const healthyFallbacks = preference.slice(n).filter((node) => !down.has(node)).length;
          const downPrimaries = primaries.filter((node) => down.has(node)).length;
          const suspects = targets.filter((t) => down.has(t.node));
          expect(suspects.every((t) => primaries.includes(t.node) && t.hint === undefined)).toBe(true);
          expect(suspects.length).toBe(Math.max(0, downPrimaries - healthyFallbacks));
          const hinted = targets.filter((t) => t.hint !== undefined);
          expect(
            hinted.every(
              (t) => primaries.includes(t.hint!) && down.has(t.hint!) && !primaries.includes(t.node),
            ),
          ).toBe(true);
          expect(targets.length).toBe(primaries.length);
          expect(spares.every((s) => !nodes.includes(s) && !primaries.includes(s))).toBe(true);
          // Healthy spares come first; suspected ones last, as a last resort.
          const firstSuspect = spares.findIndex((s) => down.has(s));
          if (firstSuspect >= 0) expect(spares.slice(firstSuspect).every((s) => down.has(s))).toBe(true);
          const replaced = hinted.map((t) => t.hint!);
          expect(new Set([...nodes, ...spares, ...replaced]).size).toBe(preference.length);
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

  it('keeps suspected fallbacks as last-resort spares and asks an irreplaceable down primary', () => {
    const { targets, spares } = sloppyTargets(
      ['a', 'b', 'c', 'd', 'e'],
      3,
      (node) => node === 'a' || node === 'b' || node === 'e',
    );
    expect(targets).toEqual([{ node: 'c' }, { node: 'd', hint: 'a' }, { node: 'b' }]);
    expect(spares).toEqual(['e']);
  });
});
