/**
 * What each replica holds, as pure logic: the nodes' copies compared (which hold the same
 * versions, what one has not received), and the sentences the page makes of them with the cluster
 * picture (never a node state other than the cluster panel's).
 */
import { type Cart, cart } from '@tessera/client';
import { describe, expect, it } from 'vitest';
import { compareReplicas } from '../src/server/cart/replicas.js';
import type { LocalCopy } from '../src/server/cluster/local-read.js';
import type { ClusterView, NodeState, ReplicasView } from '../src/shared/api.js';
import { summarize } from '../src/web/state/replicas.js';

const names: Record<string, string> = { mug: 'Stoneware mug', lamp: 'Desk lamp', fern: 'Potted fern' };
const name = (id: string): string => names[id] ?? id;
const copy = (nodeId: string, ...carts: Cart[]): LocalCopy => ({
  nodeId,
  readAt: 0,
  siblings: carts.map((value, i) => ({ value, lastModified: `2026-01-01T00:00:0${i}.000Z` })),
});

const base = cart.add('mug')(undefined);
const a = cart.add('lamp')(base);
const b = cart.setQuantity('mug', 2)(cart.add('fern')(base));
const merged = cart.merge([a, b]);

function view(nodes: ReturnType<typeof compareReplicas>): ReplicasView {
  return { cartId: 'c', observedAt: '', nodes };
}
function clusterOf(states: Record<string, NodeState>, split: string[][] | null = null): ClusterView {
  return {
    nodes: Object.entries(states).map(([id, state]) => ({ id, state })),
    split,
  } as unknown as ClusterView;
}

describe('comparing the replicas', () => {
  it('groups a split’s two sides and names what each has not received', () => {
    const nodes = compareReplicas([copy('n0', a), copy('n1', b), copy('n2', b)], name);
    expect(nodes.map((n) => n.group)).toEqual([0, 1, 1]);
    expect(nodes.map((n) => n.complete)).toEqual([false, false, false]);
    expect(nodes[0]!.missing).toEqual(['the Potted fern', 'Stoneware mug ×2']);
    expect(nodes[1]!.missing).toEqual(['the Desk lamp']);
    const s = summarize(view(nodes), clusterOf({ n0: 'up', n1: 'up', n2: 'up' }, [['n0'], ['n1', 'n2']]));
    expect(s.agreement).toBe('diverged');
    expect(s.headline).toBe(
      'The copies have diverged: n0 holds one version of the cart, n1 and n2 another: each has changes the other has not seen. The split keeps them apart.',
    );
  });

  it('says which node has not received the merge yet', () => {
    const nodes = compareReplicas([copy('n0', merged), copy('n1', merged), copy('n2', a, b)], name);
    expect(nodes.map((n) => [n.complete, n.mergePending])).toEqual([
      [true, false],
      [true, false],
      [false, true],
    ]);
    const s = summarize(view(nodes), clusterOf({ n0: 'up', n1: 'up', n2: 'up' }));
    expect(s.agreement).toBe('behind');
    expect(s.cards[2]!.note).toBe('n2 has not received the merge yet: it still holds 2 versions.');
    expect(s.headline).toBe(
      'n2 has not received every change yet. Read repair and anti-entropy bring it to them within seconds.',
    );
  });

  it('takes a node’s state from the cluster picture, not from an older read', () => {
    const nodes = compareReplicas([copy('n0', a), copy('n1', a), copy('n2', a)], name);
    const s = summarize(view(nodes), clusterOf({ n0: 'up', n1: 'up', n2: 'stopped' }));
    expect(s.cards.map((c) => c.shows)).toEqual(['copy', 'copy', 'stopped']);
    expect(s.agreement).toBe('same');
    expect(s.headline).toBe('n0 and n1 hold the same cart (one node does not answer).');
  });

  it('tells a node with no copy from one that did not answer', () => {
    const nodes = compareReplicas(
      [
        copy('n0', a),
        { nodeId: 'n1', readAt: 0, siblings: [] },
        { nodeId: 'n2', readAt: 0, siblings: undefined },
      ],
      name,
    );
    expect(nodes.map((n) => n.state)).toEqual(['copy', 'no-copy', 'no-answer']);
    expect(nodes[1]!.missing).toEqual(['the Desk lamp', 'the Stoneware mug']);
    const s = summarize(view(nodes), clusterOf({ n0: 'up', n1: 'up', n2: 'up' }));
    expect(s.cards.map((c) => c.shows)).toEqual(['copy', 'no-copy', 'asking']);
  });
});
