/**
 * How the store talks to Tessera for one request of a tab: through the node the tab chose (or the
 * first that answers), falling back to another node when that one is down, and degrading to its
 * own copy (R=1, W=1) when the node is up but cannot reach a quorum of replicas, as the minority
 * side of a split cannot. That is Dynamo's "always writeable" cart (paper 4.4): the write lands on
 * the side the customer can reach, and the versions are reconciled when the sides meet again.
 */
import { canonical, type GetResult, type Resolver, TesseraError, type WriteReceipt } from '@tessera/client';
import type { ServedBy } from '../../shared/api.js';
import { StoreError } from '../http/errors.js';
import type { NodeDirectory, NodeEntry } from './directory.js';

/** Failures that say "this node cannot serve": try another node. */
const NODE_DOWN = new Set([
  'NODE_UNREACHABLE',
  'CONNECTION_FAILED',
  'REQUEST_TIMEOUT',
  'NODE_NOT_READY',
  'OVERLOADED',
  'BAD_RESPONSE',
]);
/** Failures that say "the node is up but too few replicas answered it": use its own copy. */
const QUORUM_SHORT = new Set(['INSUFFICIENT_REPLICAS', 'TIMEOUT', 'PEER_UNAVAILABLE']);

export function isNodeDown(err: unknown): boolean {
  return TesseraError.is(err) && NODE_DOWN.has(err.code);
}

export function isQuorumShort(err: unknown): boolean {
  return TesseraError.is(err) && QUORUM_SHORT.has(err.code);
}

export interface Served<T> {
  readonly value: T;
  readonly servedBy: ServedBy;
}

export interface UpdateOutcome<T> {
  /** The read the write was based on (its siblings are what the write resolved). */
  readonly read: GetResult<T>;
  /** The merged value of that read, before the change. */
  readonly before: T | undefined;
  /** The value written, or the current one when there was nothing to write. */
  readonly after: T | undefined;
  readonly wrote: boolean;
  /** How the write was stored, when it wrote and its node said (not for a write retried degraded). */
  readonly stored?: WriteReceipt | undefined;
}

/** Reads and writes on one node, remembering whether it had to do without a quorum. */
export class NodeSession {
  degraded = false;

  /** `mayDegrade`: whether to fall back to this node's own copy when it cannot reach a quorum. */
  constructor(
    readonly node: Pick<NodeEntry, 'id' | 'url' | 'client'>,
    private readonly mayDegrade = true,
  ) {}

  async get<T>(key: string): Promise<GetResult<T>> {
    if (this.degraded) return this.node.client.get<T>(key, { r: 1 });
    try {
      return await this.node.client.get<T>(key);
    } catch (err) {
      if (!isQuorumShort(err) || !this.mayDegrade) throw err;
      this.degraded = true;
      return this.node.client.get<T>(key, { r: 1 });
    }
  }

  /**
   * Read, merge the siblings, apply `change`, write with the read's context. Without a quorum the
   * write may still have landed on this node, so instead of writing again blindly it starts over
   * degraded: the fresh read shows whether it did, and an idempotent change then changes nothing.
   * `change` returns undefined when there is nothing to write.
   */
  async update<T>(
    key: string,
    resolver: Resolver<T>,
    change: (current: T | undefined) => T | undefined,
  ): Promise<UpdateOutcome<T>> {
    let landed: UpdateOutcome<T> | undefined;
    for (let round = 0; ; round++) {
      const read = await this.get<T>(key);
      const before = merge(read, resolver);
      const after = change(before);
      const unchanged = read.siblings.length === 1 && canonical(after) === canonical(before);
      // Nothing to do, or the write that "failed" for want of a quorum had landed here after all.
      if (after === undefined || unchanged)
        return landed ?? { read, before, after: after ?? before, wrote: false };
      try {
        const put = await this.node.client.put<T>(key, after, {
          context: read.context,
          ...(this.degraded ? { w: 1 } : {}),
        });
        return { read, before, after, wrote: true, stored: put.stored };
      } catch (err) {
        if (!isQuorumShort(err) || !this.mayDegrade || this.degraded || round > 0) throw err;
        this.degraded = true;
        landed = { read, before, after, wrote: true };
      }
    }
  }
}

export function merge<T>(read: GetResult<T>, resolver: Resolver<T>): T | undefined {
  if (read.siblings.length === 0) return undefined;
  if (read.siblings.length === 1) return read.siblings[0];
  return resolver([...read.siblings], [...read.versions]);
}

export class StoreAccess {
  constructor(private readonly nodes: NodeDirectory) {}

  /**
   * Runs `fn` on the first node that can serve it: the one asked for first. A tab on "auto" is
   * served by a node that reaches a quorum when there is one, and by a node's own copy otherwise;
   * a tab pinned to a node stays on that node's side of a split.
   */
  async run<T>(asked: string, fn: (session: NodeSession) => Promise<T>): Promise<Served<T>> {
    if (asked !== 'auto' && this.nodes.get(asked) === undefined) {
      throw new StoreError(
        'UNKNOWN_NODE',
        `No node "${asked}"; use "auto" or one of ${this.nodes.ids().join(', ')}.`,
      );
    }
    const down: string[] = [];
    const short: string[] = [];
    for (const mayDegrade of asked === 'auto' ? [false, true] : [true]) {
      for (const node of this.nodes.candidates(asked)) {
        if (down.includes(node.id)) continue;
        const session = new NodeSession(node, mayDegrade);
        try {
          const value = await fn(session);
          this.nodes.markOk(node.id);
          return { value, servedBy: servedBy(asked, node.id, down, short, session.degraded) };
        } catch (err) {
          if (isNodeDown(err)) {
            this.nodes.markFailed(node.id);
            down.push(node.id);
          } else if (!mayDegrade && isQuorumShort(err)) {
            short.push(node.id);
          } else {
            throw err;
          }
        }
      }
    }
    throw new StoreError(
      'STORE_UNAVAILABLE',
      `No Tessera node could serve the request (tried ${down.join(', ')}).`,
      { tried: down },
    );
  }
}

function servedBy(
  asked: string,
  nodeId: string,
  down: readonly string[],
  short: readonly string[],
  degraded: boolean,
): ServedBy {
  const parts: string[] = [];
  if (down.length > 0) parts.push(`${down.join(' and ')} did not answer, so ${nodeId} served this instead.`);
  const passedOver = short.filter((id) => id !== nodeId);
  if (passedOver.length > 0)
    parts.push(`${passedOver.join(' and ')} could not reach a quorum, so ${nodeId} served this.`);
  if (parts.length === 0) parts.push(`Served by ${nodeId}.`);
  if (degraded) {
    parts.push(
      `${nodeId} cannot reach enough replicas for a quorum, so it read and wrote its own copy: the other side will merge it later.`,
    );
  }
  return { asked, nodeId, fallback: down.length > 0, degraded, note: parts.join(' ') };
}
