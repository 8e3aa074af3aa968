/**
 * The resolver laws, checked with fast-check, which the caller passes in (like abstract-level's
 * suite takes the test functions): the client depends on it in no way. One line in a test:
 *
 *   it('my resolver is lawful', () => assertResolverLaws(fc, myResolver, fc.array(fc.string())));
 *
 * The laws, on sibling sets (docs/resolvers.md):
 * - commutative: every order of the same siblings merges to the same value;
 * - associative: merging groups of siblings, then merging the results, equals merging them all;
 * - idempotent: duplicate siblings change nothing, and merging the result with any of its inputs
 *   changes nothing;
 * - keeps: the merge keeps what the resolver promises (your predicate, e.g. "every element").
 */

import type fastCheck from 'fast-check';
import type { Arbitrary, IPropertyWithHooks } from 'fast-check';
import { sameValue } from '../canonical.js';
import type { Resolver, Version } from '../resolvers/types.js';

export interface ResolverLawOptions<T> {
  /** "Keeps what it promises": true when `merged` keeps what it must from `siblings`. */
  readonly keeps?: (siblings: T[], merged: T) => boolean;
  /** Equality of two merged values. Default: deep equality of canonical JSON. */
  readonly equals?: (a: T, b: T) => boolean;
  /** Most siblings in a generated set. Default 5. */
  readonly maxSiblings?: number;
  /** fast-check runs per law. Default 200. */
  readonly numRuns?: number;
  /** Replays a failure fast-check reported. */
  readonly seed?: number;
}

export type ResolverLaw = 'commutative' | 'associative' | 'idempotent' | 'keeps';

/** The fast-check module (`import fc from 'fast-check'`), given by the caller. */
export type FastCheck = typeof fastCheck;

/** The laws as fast-check properties, to run or combine as you like. */
export function resolverLaws<T>(
  fc: FastCheck,
  resolver: Resolver<T>,
  value: Arbitrary<T>,
  options: ResolverLawOptions<T> = {},
): Record<ResolverLaw, IPropertyWithHooks<[Version<T>[], number[]]>> {
  const equals = options.equals ?? sameValue;
  const siblings = fc.array(version(fc, value), { minLength: 1, maxLength: options.maxSiblings ?? 5 });
  const cuts = fc.array(fc.nat(), { minLength: 8, maxLength: 8 });
  const law = (check: (s: Version<T>[], n: number[]) => boolean) => fc.property(siblings, cuts, check);
  return {
    commutative: law((s, n) => {
      const shuffled = s
        .map((v, i) => ({ v, k: n[i % n.length]! + i / 100 }))
        .sort((a, b) => a.k - b.k)
        .map((e) => e.v);
      return equals(merge(resolver, s).value, merge(resolver, shuffled).value);
    }),
    associative: law((s, n) => {
      if (s.length < 2) return true;
      const at = 1 + (n[0]! % (s.length - 1));
      const grouped = merge(resolver, [merge(resolver, s.slice(0, at)), merge(resolver, s.slice(at))]);
      return equals(grouped.value, merge(resolver, s).value);
    }),
    idempotent: law((s, n) => {
      const once = merge(resolver, s);
      if (!equals(merge(resolver, [...s, ...s]).value, once.value)) return false;
      if (!equals(merge(resolver, [once, once]).value, once.value)) return false;
      const input = s[n[0]! % s.length]!;
      return equals(merge(resolver, [once, input]).value, once.value);
    }),
    keeps: law((s) => {
      if (options.keeps === undefined) return true;
      const values = s.map((v) => v.value);
      return options.keeps(values, merge(resolver, s).value);
    }),
  };
}

/** Runs every law; throws an Error naming the law and the counterexample when one fails. */
export function assertResolverLaws<T>(
  fc: FastCheck,
  resolver: Resolver<T>,
  value: Arbitrary<T>,
  options: ResolverLawOptions<T> = {},
): void {
  const laws = resolverLaws(fc, resolver, value, options);
  const params = {
    numRuns: options.numRuns ?? 200,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  };
  for (const [name, property] of Object.entries(laws)) {
    try {
      fc.assert(property, params);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(
        `The resolver is not ${name === 'keeps' ? 'keeping what it promises' : name}.\n${message}`,
        {
          cause: err,
        },
      );
    }
  }
}

/**
 * The resolution of a group of siblings (even of one: the laws are about the resolver as a
 * function of sibling sets); the merged value carries the latest timestamp of its inputs.
 */
function merge<T>(resolver: Resolver<T>, group: Version<T>[]): Version<T> {
  const value = resolver(
    group.map((v) => v.value),
    [...group],
  );
  const lastModified = new Date(Math.max(...group.map((v) => v.lastModified.getTime())));
  return { value, lastModified };
}

function version<T>(fc: FastCheck, value: Arbitrary<T>): Arbitrary<Version<T>> {
  // A few distinct instants, so that equal timestamps (ties) are common.
  return fc.record({
    value,
    lastModified: fc.integer({ min: 0, max: 6 }).map((s) => new Date(1_800_000_000_000 + s * 1000)),
  });
}
