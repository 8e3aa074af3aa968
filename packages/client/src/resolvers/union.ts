/**
 * Union: every element of every sibling, once. For arrays and Sets of JSON values. Elements are
 * deduplicated by `key` (default: the element's canonical JSON) and returned sorted by it, so the
 * same siblings give the same value on every client. Union never loses an add, and never removes
 * anything either: a removal made in one sibling comes back from the others (the paper's cart).
 * For values where removals matter, use cart() or a CRDT of your own.
 */
import { canonical, compareText } from '../canonical.js';
import { TesseraError } from '../errors.js';
import type { Resolver } from './types.js';

export interface UnionOptions<E> {
  /**
   * Identity of an element: two elements with the same key are one. Default: canonical JSON (deep
   * equality). Of two different elements with the same key, the one with the smaller canonical
   * JSON is kept, whatever the order of the siblings.
   */
  readonly key?: (element: E) => string;
}

type ElementOf<T> = T extends ReadonlySet<infer E> ? E : T extends readonly (infer E)[] ? E : never;

export function union<T extends readonly unknown[] | ReadonlySet<unknown>>(
  options: UnionOptions<ElementOf<T>> = {},
): Resolver<T> {
  const keyOf = options.key ?? ((element: ElementOf<T>) => canonical(element));
  return (siblings) => {
    const kept = new Map<string, { element: ElementOf<T>; text: string | undefined }>();
    let asSet = false;
    siblings.forEach((sibling, index) => {
      if (sibling instanceof Set) asSet = true;
      else if (!Array.isArray(sibling)) {
        throw new TesseraError(
          'RESOLVER_FAILED',
          `union() merges arrays and Sets; sibling ${index} is ${sibling === null ? 'null' : typeof sibling}.`,
          { details: { sibling: index } },
        );
      }
      for (const element of sibling as Iterable<ElementOf<T>>) {
        const key = keyOf(element);
        const current = kept.get(key);
        if (current === undefined) {
          kept.set(key, { element, text: undefined });
          continue;
        }
        if (options.key === undefined) continue; // same key means deep-equal: nothing to choose
        current.text ??= canonical(current.element);
        const text = canonical(element);
        if (compareText(text, current.text) < 0) kept.set(key, { element, text });
      }
    });
    const ordered = [...kept.entries()].sort(([a], [b]) => compareText(a, b)).map(([, e]) => e.element);
    return (asSet ? new Set(ordered) : ordered) as unknown as T;
  };
}
