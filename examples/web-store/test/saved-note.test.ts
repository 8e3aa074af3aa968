/**
 * "Saved on n0 only" (issue 17, part 4), as pure logic: a cart write's receipt from the client
 * (`stored`, simulated with `client.memory.storeOn`) through the store's answer to the sentence the
 * cart shows, and when the replicas view turns it into "now on all 3 replicas".
 */
import { type Cart, cart, resolvers } from '@tessera/client';
import { createMemoryClient } from '@tessera/client/testing';
import { describe, expect, it } from 'vitest';
import { storedView, withStored } from '../src/server/cart/stored.js';
import { NodeSession } from '../src/server/cluster/access.js';
import type { CartView, ReplicaCopy, ReplicasView, WriteStored } from '../src/shared/api.js';
import {
  heldEverywhere,
  phrase,
  type SavedWrite,
  savedAfter,
  savedSeen,
  savedText,
} from '../src/web/state/saved.js';

const AT = '2026-01-01T00:00:10.000Z';
const receipt = (acks: WriteStored['acks'], w = 1, n = 3): WriteStored => ({
  acks,
  replicas: new Set(acks.filter((a) => a.as === 'replica').map((a) => a.node)).size,
  n,
  w,
  via: acks[0]?.node ?? 'n0',
  at: AT,
});
const replica = (node: string) => ({ node, as: 'replica' as const });
const hint = (node: string, forNode: string) => ({ node, as: 'hint' as const, for: forNode });

describe('the phrasing of a write’s receipt', () => {
  it('says plain "saved" for a majority of the replicas, never "on all 3"', () => {
    for (const acks of [
      [replica('n2'), replica('n1')],
      [replica('n0'), replica('n1'), replica('n2')],
    ]) {
      const said = phrase(receipt(acks, 2));
      expect(said.kind).toBe('saved');
      expect(said.text).toBe('saved');
      expect(said.detail).not.toContain('all 3');
    }
    expect(phrase(receipt([replica('n2'), replica('n1')], 2)).detail).toContain('2 of 3 replicas');
    // Of 5 replicas, 3 is a majority and 2 is not.
    expect(phrase(receipt(['a', 'b', 'c'].map(replica), 3, 5)).kind).toBe('saved');
    expect(phrase(receipt(['a', 'b'].map(replica), 2, 5)).text).toBe('saved on a, b only — 2 of 5 replicas');
  });

  it('names the nodes that have a write without a quorum, and why the others will get it', () => {
    const said = phrase(receipt([replica('n0')]));
    expect(said).toMatchObject({ kind: 'minority', text: 'saved on n0 only — 1 of 3 replicas' });
    expect(said.detail).toContain('n0 could not reach a quorum of replicas, so it wrote with W=1');
    expect(said.detail).toContain('when the split heals: hinted handoff and anti-entropy');
    expect(phrase(receipt([replica('n0')]), false).detail).toContain('once they are back in touch');
  });

  it('says which stand-in holds a hint for which replica, with no replica too', () => {
    expect(phrase(receipt([replica('n0'), hint('n3', 'n1')], 2)).text).toBe(
      'saved on n0 only — 1 of 3 replicas (n3 holds a copy for n1)',
    );
    expect(phrase(receipt([replica('n0'), hint('n3', 'n1')], 2)).detail).toContain('sloppy quorum');
    expect(phrase(receipt([hint('n3', 'n1'), hint('n4', 'n2')], 1)).text).toBe(
      'saved on no replica — 0 of 3 replicas (n3 holds a copy for n1, n4 holds a copy for n2)',
    );
  });

  it('says nothing without a receipt', () => {
    expect(savedText(undefined, true)).toBeUndefined();
    const view = { cartId: 'c' } as CartView;
    const kept: SavedWrite = { cartId: 'c', stored: receipt([replica('n0')]), everywhere: false };
    // A read keeps the last write's note; a write without a receipt clears it.
    expect(savedAfter(kept, view)).toBe(kept);
    expect(savedAfter(kept, { ...view, stored: null })).toBeUndefined();
    expect(
      savedAfter(undefined, { ...view, stored: receipt([replica('n2'), replica('n1')], 2) }),
    ).toMatchObject({
      everywhere: false,
    });
  });
});

describe('when the note says the write is on every replica', () => {
  const copy = (nodeId: string, over: Partial<ReplicaCopy> = {}): ReplicaCopy => ({
    nodeId,
    state: 'copy',
    readAt: '2026-01-01T00:00:11.000Z',
    versions: 1,
    items: [],
    lastModified: null,
    group: 0,
    complete: true,
    mergePending: false,
    missing: [],
    ...over,
  });
  const view = (...nodes: ReplicaCopy[]): ReplicasView => ({ cartId: 'c', observedAt: '', nodes });
  const saved: SavedWrite = { cartId: 'c', stored: receipt([replica('n0')]), everywhere: false };

  it('only once every node’s copy, read after the write, holds everything any node holds', () => {
    expect(heldEverywhere(saved, view(copy('n0'), copy('n1'), copy('n2')))).toBe(true);
    // A node still missing something, a copy read before the write, a node that did not answer.
    expect(
      heldEverywhere(saved, view(copy('n0'), copy('n1', { missing: ['the Desk lamp'] }), copy('n2'))),
    ).toBe(false);
    expect(
      heldEverywhere(saved, view(copy('n0'), copy('n1', { readAt: '2026-01-01T00:00:09.000Z' }), copy('n2'))),
    ).toBe(false);
    expect(heldEverywhere(saved, view(copy('n0'), copy('n1', { state: 'no-answer' }), copy('n2')))).toBe(
      false,
    );
    expect(heldEverywhere(saved, view(copy('n0'), copy('n1')))).toBe(false);
    expect(heldEverywhere(saved, { ...view(copy('n0'), copy('n1'), copy('n2')), cartId: 'other' })).toBe(
      false,
    );
    // Holding the merged cart as versions a merge replaced elsewhere still holds the write.
    expect(
      heldEverywhere(
        saved,
        view(copy('n0'), copy('n1', { mergePending: true, complete: false }), copy('n2')),
      ),
    ).toBe(true);
  });

  it('turns "saved on n0 only" into "now on all 3 replicas", and stays so', () => {
    const seen = savedSeen(saved, view(copy('n0'), copy('n1'), copy('n2')));
    expect(savedText(seen, false)).toMatchObject({ kind: 'everywhere', text: 'now on all 3 replicas' });
    expect(savedSeen(seen, view(copy('n0'), copy('n1', { state: 'no-answer' }), copy('n2')))).toBe(seen);
    expect(savedText(saved, true)?.kind).toBe('minority');
  });
});

describe('the store’s answer carries the receipt of the cart write', () => {
  const key = 'cart:c';
  const add = (c: Cart | undefined): Cart => cart.add('mug')(c);

  it('from the client’s stored, as the memory node simulates it', async () => {
    const client = createMemoryClient();
    const session = new NodeSession({ id: 'n0', url: 'memory:', client });
    client.memory.storeOn([{ node: 'n0', as: 'replica' }]);
    const outcome = await session.update<Cart>(key, resolvers.cart(), add);
    expect(outcome.stored).toEqual({ acks: [{ node: 'n0', as: 'replica' }], replicas: 1, n: 3, w: 2 });
    const answered = withStored({ cartId: 'c' } as CartView, outcome, 'n0');
    expect(answered.stored).toMatchObject({
      acks: [{ node: 'n0', as: 'replica' }],
      replicas: 1,
      n: 3,
      via: 'n0',
    });
    expect(phrase(answered.stored!).text).toBe('saved on n0 only — 1 of 3 replicas');

    client.memory.storeOn();
    const all = await session.update<Cart>(key, resolvers.cart(), add);
    expect(phrase(storedView(all.stored!, 'n0')).text).toBe('saved');
    await client.close();
  });

  it('says nothing for a change that wrote nothing, null for a write without a receipt', () => {
    const view = { cartId: 'c' } as CartView;
    expect(withStored(view, { wrote: false }, 'n0')).toBe(view);
    expect(withStored(view, { wrote: true }, 'n0').stored).toBeNull();
  });
});
