/**
 * The page's pure state logic: checkout notes for the tab that ordered and the tab whose cart
 * emptied (problem 5), a refused checkout and the stock shown, the node offered to a second tab
 * (problem 2), when the last merge's summary is old news (problem 6), and removed lines that keep
 * their place (problem 8).
 */
import { describe, expect, it } from 'vitest';
import type {
  CartLineView,
  CartStory,
  CartView,
  CheckoutResult,
  ClusterView,
  NodeView,
} from '../src/shared/api.js';
import { initialState } from '../src/web/state/app-state.js';
import { knownAfter, noteAfter, ordersFromElsewhere, refusalOf } from '../src/web/state/checkout.js';
import { rows, withRemoved } from '../src/web/state/removals.js';
import { otherNode, showPastMerge, thisNode } from '../src/web/state/select.js';
import { withStock } from '../src/web/state/updates.js';

const story = (checkouts: CartStory['checkouts']): CartStory => ({
  tabs: [],
  steps: [],
  writes: [],
  checkouts,
});
const order = { id: 'abcdef123456', cartId: 'c', lines: [], totalCents: 100, createdAt: '', consumed: [] };
const result = (replayed: boolean, s = story([])): CheckoutResult => ({
  order,
  replayed,
  cart: { story: s } as unknown as CartView,
});
const checkout = (you: boolean) => ({
  orderId: order.id,
  at: '',
  node: 'n0',
  items: 1,
  totalCents: 100,
  you,
});

describe('checkout notes', () => {
  it('keeps the thank-you when the second press of a double click comes back as a replay', () => {
    const first = noteAfter(undefined, result(false), story([checkout(true)]));
    const second = noteAfter(first, result(true), story([checkout(true)]));
    expect(second).toMatchObject({ kind: 'placed', presses: 2, elsewhere: false });
  });

  it('says "already ordered from another tab" to a tab whose press placed nothing', () => {
    expect(noteAfter(undefined, result(true), story([checkout(false)]))).toMatchObject({
      kind: 'already',
      elsewhere: true,
    });
  });

  it('tells the other tab about an order placed after it opened, once', () => {
    const known = knownAfter(undefined, story([]), true);
    expect(ordersFromElsewhere(story([checkout(false)]), known).map((c) => c.orderId)).toEqual([order.id]);
    const afterAct = knownAfter(known, story([checkout(false)]), true);
    expect(ordersFromElsewhere(story([checkout(false)]), afterAct)).toEqual([]);
    // An order that was there when the tab opened is not news.
    expect(
      ordersFromElsewhere(story([checkout(false)]), knownAfter(undefined, story([checkout(false)]), true)),
    ).toEqual([]);
  });
});

const node = (id: string, state: NodeView['state'] = 'up'): NodeView => ({
  id,
  url: '',
  managed: true,
  running: true,
  reachable: state === 'up',
  state,
  pid: null,
  peers: [],
  blocks: [],
  partitions: null,
});
const cluster = (nodes: NodeView[], over: Partial<ClusterView> = {}): ClusterView => ({
  observedAt: '2026-01-01T12:00:00Z',
  nodes,
  links: [],
  split: null,
  health: { kind: 'ok', text: '', catchingUp: null },
  lastSplitAt: null,
  canControlProcesses: true,
  faultInjection: true,
  quorum: null,
  ...over,
});

describe('the node offered to a second tab', () => {
  it('is never the node this tab is on, pinned or on auto', () => {
    const view = cluster([node('n0'), node('n1'), node('n2')]);
    expect(otherNode(view, 'n0')).toBe('n2');
    expect(otherNode(view, 'n2')).toBe('n1');
    const onAuto = thisNode({
      tab: { id: 't', node: 'auto' },
      cart: { servedBy: { nodeId: 'n2' } } as CartView,
    });
    expect(onAuto).toBe('n2');
    expect(otherNode(view, onAuto)).toBe('n1');
    expect(otherNode(cluster([node('n0'), node('n1'), node('n2', 'stopped')]), 'n0')).toBe('n1');
  });
});

describe('the last merge’s summary', () => {
  const cart = {
    lastReconciliation: { resolvedAt: '2026-01-01T12:00:00Z' },
  } as unknown as CartView;
  it('shows until the cluster is split again, and not after that split', () => {
    expect(showPastMerge({ cart, cluster: { view: cluster([]), stale: false } })).toBe(true);
    const split = cluster([], { split: [['n0'], ['n1']], lastSplitAt: '2026-01-01T12:01:00Z' });
    expect(showPastMerge({ cart, cluster: { view: split, stale: false } })).toBe(false);
    const healed = cluster([], { lastSplitAt: '2026-01-01T12:01:00Z' });
    expect(showPastMerge({ cart, cluster: { view: healed, stale: false } })).toBe(false);
  });
});

describe('a removed line', () => {
  const line = (productId: string): CartLineView => ({
    productId,
    name: productId,
    image: '',
    quantity: 1,
    priceCents: 1,
    subtotalCents: 1,
  });
  it('keeps its place among the lines for a few seconds', () => {
    const removed = withRemoved([], line('kettle'), 0);
    const cart = { items: [line('headphones'), line('mug')] } as unknown as CartView;
    expect(rows(cart, removed, 1_000).map((r) => `${r.kind}:${r.line.productId}`)).toEqual([
      'line:headphones',
      'removed:kettle',
      'line:mug',
    ]);
    expect(rows(cart, removed, 10_000).map((r) => r.kind)).toEqual(['line', 'line']);
  });
});

describe('a refused checkout and the stock', () => {
  it('keeps the refusals that explain themselves under the button, and leaves other errors to a toast', () => {
    const shortages = [{ productId: 'lamp', name: 'Desk lamp', wanted: 1, left: 0, justBought: true }];
    expect(
      refusalOf('SOLD_OUT', 'Sorry, the last Desk lamp was just bought — 0 left.', { shortages }),
    ).toEqual({
      code: 'SOLD_OUT',
      message: 'Sorry, the last Desk lamp was just bought — 0 left.',
      shortages,
    });
    expect(refusalOf('STRONG_UNAVAILABLE', 'n0 cannot reach a majority', undefined)?.shortages).toEqual([]);
    expect(refusalOf('STORE_UNAVAILABLE', 'no node', undefined)).toBeUndefined();
    expect(refusalOf('CART_EMPTY', 'empty', undefined)).toBeUndefined();
  });

  it('shows the newest stock read, whatever order the answers come in', () => {
    const state = initialState('cart-1', { id: 'tab-1', node: 'auto' });
    const newer = withStock(state, {
      stock: [
        { productId: 'lamp', left: 0 },
        { productId: 'mug', left: 11 },
      ],
      observedAt: '2026-01-01T12:00:02Z',
    });
    expect(newer.stock?.left).toEqual({ lamp: 0, mug: 11 });
    const late = withStock(newer, {
      stock: [{ productId: 'lamp', left: 1 }],
      observedAt: '2026-01-01T12:00:01Z',
    });
    expect(late).toBe(newer);
  });
});
