import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryClient } from '../testing/index.js';
import { assertResolverLaws } from '../testing/laws.js';
import { type AutomergeValue, automergeCrdt } from './automerge.js';

type Todo = { title: string; items: string[] };
const todos = automergeCrdt<Todo>({ initial: { title: '', items: [] } });

/** Documents that share a history: edits made concurrently or in sequence on one base. */
const base = todos.change((d) => {
  d.title = 'groceries';
})(undefined);
const edit = (item: string) =>
  todos.change((d) => {
    d.items.push(item);
  });
const retitle = todos.change((d) => {
  d.title = 'shopping';
});
const pool: AutomergeValue[] = [
  base,
  edit('milk')(base),
  edit('eggs')(base),
  retitle(base),
  edit('bread')(edit('jam')(base)),
  retitle(edit('tea')(base)),
];
const anyDoc = fc.subarray(pool, { minLength: 1 }).map((docs) => todos.merge(docs));

describe('automergeCrdt()', () => {
  it('obeys the resolver laws on the stored JSON (the merge is written deterministically)', () => {
    assertResolverLaws(fc, todos.resolver, anyDoc, {
      numRuns: 40,
      maxSiblings: 4,
      keeps: (siblings, merged) => {
        const items = todos.view(merged).items;
        return siblings.every((s) => todos.view(s).items.every((item) => items.includes(item)));
      },
    });
  });

  it('merges concurrent edits of one document, from clients that each created it', () => {
    const laptop = edit('milk')(undefined);
    const phone = edit('eggs')(undefined);
    const merged = todos.view(todos.resolver([laptop, phone], []));
    expect([...merged.items].sort()).toEqual(['eggs', 'milk']);
    expect(todos.resolver([phone, laptop], [])).toEqual(todos.resolver([laptop, phone], []));
  });

  it('applies an updater once, however often update() retries it', () => {
    const add = edit('milk');
    const once = add(base);
    expect(add(once)).toEqual(once);
    expect(todos.view(add(once)).items).toEqual(['milk']);
    expect(todos.change(() => {})(once)).toEqual(once);
    expect(todos.view(undefined)).toEqual({ title: '', items: [] });
  });

  it('replays its change on a retry that read a copy without it: a surfacing first attempt is the same change', () => {
    const add = edit('milk');
    const landedOnOneReplica = add(base);
    const freshRead = edit('eggs')(base); // a read that missed the first attempt
    const retried = add(freshRead);
    const merged = todos.view(todos.merge([retried, landedOnOneReplica]));
    expect(merged.items.filter((i) => i === 'milk')).toHaveLength(1);
    expect([...merged.items].sort()).toEqual(['eggs', 'milk']);
  });

  it('works as a collection with the in-memory client: siblings merged by Automerge', async () => {
    const laptop = createMemoryClient();
    const phone = createMemoryClient({ memory: laptop.memory });
    const lists = [laptop, phone].map((c) =>
      c.collection('todo', { schema: todos.schema, resolver: todos.resolver }),
    );
    await lists[0]!.update('home', edit('milk'));
    // Both devices read the same version, then write without seeing each other: two siblings.
    const [a, b] = [await lists[0]!.get('home'), await lists[1]!.get('home')];
    await lists[0]!.put('home', edit('eggs')(a.value), { context: a.context });
    await lists[1]!.put('home', retitle(b.value), { context: b.context });
    const read = await lists[0]!.get('home');
    expect(read.siblings).toBe(2);
    expect(todos.view(read.value)).toEqual({ title: 'shopping', items: ['milk', 'eggs'] });
  });

  it('checks stored values', () => {
    expect(todos.is(base)).toBe(true);
    expect(todos.issues({ type: 'tessera.automerge', v: 1, doc: 'bm90IGEgZG9j' })[0]?.path).toEqual(['doc']);
    expect(() => todos.resolver([base, { items: [] } as never], [])).toThrow(
      expect.objectContaining({ code: 'RESOLVER_FAILED' }),
    );
  });
});
