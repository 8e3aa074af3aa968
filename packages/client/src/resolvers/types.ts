/** What a resolver is: a merge function over the siblings of one key. */

/** One sibling as the node returned it. */
export interface Version<T> {
  readonly value: T;
  /** When the coordinating node wrote it (its wall clock): for display and last-writer-wins only. */
  readonly lastModified: Date;
}

/**
 * Merges the concurrent values of one key into one. The client calls it with two or more
 * siblings; `versions` holds the same siblings with their timestamps, in the same order. Any
 * `(siblings: T[]) => T` is a resolver. A good one is commutative, associative and idempotent
 * (docs/resolvers.md), so every client that sees the same siblings writes back the same value.
 */
export type Resolver<T> = (siblings: T[], versions: Version<T>[]) => T;
