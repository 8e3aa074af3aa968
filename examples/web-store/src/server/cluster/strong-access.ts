/**
 * How the store reaches the strong keys (stock and orders): through the node the tab chose, or
 * another one when that node does not answer. Unlike a cart, a strong key is never served from a
 * node's own copy: a node that cannot reach a majority of the key's primary replicas (the minority
 * side of a split) answers STRONG_UNAVAILABLE rather than risk a diverging write. A tab on "auto"
 * then goes to a node that can; a tab pinned to that node gets the refusal when `stay` is set (its
 * checkout), and is served by another node for a read (the stock and the orders it shows).
 *
 * Running `fn` again on another node is safe for the store's strong calls: reads, and transactions
 * whose token is derived from their actions (orders/checkout.ts), which a node never applies twice.
 */
import { type TesseraClient, TesseraError } from '@tessera/client';
import { StoreError } from '../http/errors.js';
import { isNodeDown } from './access.js';
import type { NodeDirectory, NodeEntry } from './directory.js';

/**
 * Retries of a strong call on one node: none. The node itself retries within its deadline (a
 * ring change, contention); what is left after that is the answer, and another node is next.
 */
const STRONG_RETRIES = 0;

export interface StrongServed<T> {
  readonly value: T;
  readonly nodeId: string;
}

export interface StrongRunOptions {
  /** A tab pinned to a node that cannot reach a majority gets STRONG_UNAVAILABLE (its checkout). */
  readonly stay?: boolean;
  /** For a tab on "auto": the node to try first (the one that just served its cart with a quorum). */
  readonly prefer?: string | undefined;
}

/** The options every strong call of the store passes to its node's client. */
export const STRONG_CALL = { retries: STRONG_RETRIES } as const;

/** A node that answered STRONG_UNAVAILABLE is tried after the others for this long. */
const CUT_OFF_FOR_MS = 10_000;

export class StrongAccess {
  private readonly cutOffAt = new Map<string, number>();

  constructor(private readonly nodes: NodeDirectory) {}

  async run<T>(
    asked: string,
    fn: (client: TesseraClient) => Promise<T>,
    options: StrongRunOptions = {},
  ): Promise<StrongServed<T>> {
    const pinned = asked !== 'auto';
    const down: string[] = [];
    const cutOff: string[] = [];
    const stay = options.stay === true && pinned;
    for (const node of this.order(pinned ? asked : (options.prefer ?? asked), stay)) {
      try {
        const value = await fn(node.strong);
        this.nodes.markOk(node.id);
        this.cutOffAt.delete(node.id);
        return { value, nodeId: node.id };
      } catch (err) {
        if (isNodeDown(err)) {
          this.nodes.markFailed(node.id);
          down.push(node.id);
        } else if (TesseraError.is(err, 'STRONG_UNAVAILABLE')) {
          this.cutOffAt.set(node.id, Date.now());
          if (stay && node.id === asked) throw cutOffError(node.id);
          cutOff.push(node.id);
        } else {
          throw err;
        }
      }
    }
    if (cutOff.length > 0) throw cutOffError(cutOff.join(' and '));
    throw new StoreError(
      'STORE_UNAVAILABLE',
      `No Tessera node could serve the request (tried ${down.join(', ')}).`,
      { tried: down },
    );
  }

  /**
   * The nodes to try, best first: the one asked for, unless it was cut off lately (a pinned tab's
   * checkout asks its own node whatever happened before: `keepFirst`), then the others, those not
   * cut off lately first. A node cut off costs the node's whole deadline (5 s) to find out.
   */
  private order(first: string, keepFirst: boolean): NodeEntry[] {
    const now = Date.now();
    const cut = (e: NodeEntry): boolean =>
      !(keepFirst && e.id === first) &&
      (this.cutOffAt.get(e.id) ?? Number.NEGATIVE_INFINITY) + CUT_OFF_FOR_MS > now;
    const all = this.nodes.candidates(first);
    return [...all.filter((e) => !cut(e)), ...all.filter(cut)];
  }
}

function cutOffError(nodes: string): StoreError {
  return new StoreError(
    'STRONG_UNAVAILABLE',
    `${nodes} cannot reach a majority of the stock's and the orders' replicas (is the cluster split?). ` +
      'Stock and orders are strong keys: they refuse rather than diverge. Nothing was ordered and your ' +
      'cart is kept: check out again once the split heals, or from a tab on another node.',
  );
}
