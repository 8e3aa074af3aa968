/**
 * What the store process remembers of each cart's story (in memory, like the journal): the tabs
 * that have it open, the writes and orders with the node each went through, and the steps of the
 * guide it reached. Every tab of the cart reads the same record, so the guide of one tab moves when
 * the other tab does its part. After a restart of the store the story starts again.
 */
import type { CartStory, ServedBy, StoryWrite } from '../../shared/api.js';
import { BoundedMap } from '../util/bounded-map.js';
import { advance, type Progress, STEPS, type StoryFacts, type TabSeen, type WriteSeen } from './steps.js';

/** A tab that asked for the cart this recently still has it open (pages poll every 1.2 s). */
const TAB_PRESENT_MS = 8_000;
const WRITES_MAX = 40;
const CHECKOUTS_MAX = 10;
const CARTS_MAX = 2_000;

export type SplitSource = () => {
  readonly sides: readonly (readonly string[])[];
  readonly since: number;
} | null;

interface CheckoutSeen {
  readonly orderId: string;
  readonly tab: string | undefined;
  readonly node: string;
  readonly at: number;
  readonly items: number;
  readonly totalCents: number;
}

class CartRecord {
  readonly tabs = new Map<string, TabSeen>();
  writes: WriteSeen[] = [];
  checkouts: CheckoutSeen[] = [];
  progress: Progress = {};
  pending: Readonly<Record<string, string>> = {};
  items: readonly string[] = [];
  sawVersions = 0;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export class StoryBook {
  private readonly carts = new BoundedMap<string, CartRecord>(CARTS_MAX);

  constructor(
    private readonly split: SplitSource,
    private readonly name: (productId: string) => string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A tab read the cart (or got it back from a change): it has the cart open, on this node. */
  seen(
    cartId: string,
    tab: string | undefined,
    servedBy: ServedBy,
    cart: { readonly items: readonly string[]; readonly versions: number },
  ): void {
    const record = this.record(cartId);
    if (tab !== undefined)
      record.tabs.set(tab, { tab, asked: servedBy.asked, servedBy: servedBy.nodeId, at: this.now() });
    record.items = cart.items;
    record.sawVersions = Math.max(record.sawVersions, cart.versions);
    this.judge(record);
  }

  wrote(
    cartId: string,
    tab: string | undefined,
    servedBy: ServedBy,
    op: StoryWrite['op'],
    productId: string,
  ): void {
    const record = this.record(cartId);
    const write = { tab, node: servedBy.nodeId, at: this.now(), op, productId, degraded: servedBy.degraded };
    record.writes = [...record.writes, write].slice(-WRITES_MAX);
    this.judge(record);
  }

  /** A write replaced several versions with their merge. */
  resolved(cartId: string, versions: number): void {
    const record = this.record(cartId);
    record.sawVersions = Math.max(record.sawVersions, versions);
    this.judge(record);
  }

  checkedOut(cartId: string, tab: string | undefined, order: Omit<CheckoutSeen, 'tab' | 'at'>): void {
    const record = this.record(cartId);
    if (record.checkouts.some((c) => c.orderId === order.orderId)) return;
    record.checkouts = [...record.checkouts, { ...order, tab, at: this.now() }].slice(-CHECKOUTS_MAX);
  }

  /** The story as the tab `tab` sees it ("you" is that tab). */
  view(cartId: string, tab: string | undefined): CartStory {
    const record = this.record(cartId);
    this.forgetClosedTabs(record);
    return {
      tabs: [...record.tabs.values()].map((t) => ({
        node: t.asked,
        servedBy: t.servedBy,
        you: t.tab === tab,
      })),
      steps: STEPS.map((id) => {
        const reached = record.progress[id];
        return reached === undefined
          ? { id, doneAt: null, detail: record.pending[id] ?? '' }
          : { id, doneAt: iso(reached.at), detail: reached.detail };
      }),
      writes: record.writes.slice(-10).map((w) => ({
        at: iso(w.at),
        node: w.node,
        op: w.op,
        productId: w.productId,
        degraded: w.degraded,
        you: tab !== undefined && w.tab === tab,
      })),
      checkouts: record.checkouts.map((c) => ({
        orderId: c.orderId,
        at: iso(c.at),
        node: c.node,
        items: c.items,
        totalCents: c.totalCents,
        you: tab !== undefined && c.tab === tab,
      })),
    };
  }

  private judge(record: CartRecord): void {
    this.forgetClosedTabs(record);
    const facts: StoryFacts = {
      tabs: [...record.tabs.values()],
      writes: record.writes,
      split: this.split(),
      items: record.items,
      sawVersions: record.sawVersions,
      name: this.name,
    };
    const { progress, pending } = advance(record.progress, facts, this.now());
    record.progress = progress;
    record.pending = pending;
  }

  private forgetClosedTabs(record: CartRecord): void {
    const now = this.now();
    for (const [id, t] of record.tabs) if (now - t.at > TAB_PRESENT_MS) record.tabs.delete(id);
  }

  private record(cartId: string): CartRecord {
    let record = this.carts.get(cartId);
    if (record === undefined) {
      record = new CartRecord();
      this.carts.set(cartId, record);
    }
    return record;
  }
}
